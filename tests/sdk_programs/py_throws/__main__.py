"""Creates one resource, waits for it, then fails."""

import pulumi
import pulumi_random as random

before = random.RandomString("before", length=5, special=False)


def explode(result):
    raise ValueError("the program gave up after " + result)


before.result.apply(explode)
