"""A random string, from the pulumi-random package `about` lists among the dependencies."""

import pulumi
import pulumi_random

word = pulumi_random.RandomString("word", length=8)

pulumi.export("word", word.result)
