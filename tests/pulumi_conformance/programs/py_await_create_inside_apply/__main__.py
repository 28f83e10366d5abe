"""A dynamic resource created inside an apply that resolves after the program's code ended; its
URN is printed once known."""

import asyncio
import secrets

from pulumi import Output
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class RandomHexProvider(ResourceProvider):
    def create(self, props):
        value = secrets.token_hex(15)
        return CreateResult(value, {"val": value})


class Random(Resource):
    val: str

    def __init__(self, name, opts=None):
        super().__init__(RandomHexProvider(), name, {"val": ""}, opts)


def create_random(name: str) -> None:
    Random(name).urn.apply(print)


Random("foo")
Output.from_input(asyncio.sleep(1.0, "magic_string")).apply(create_random)
