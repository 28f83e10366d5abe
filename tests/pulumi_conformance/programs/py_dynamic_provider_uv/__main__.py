"""A dynamic resource whose provider makes a random hex value, and an output awaited from a
coroutine, in a program whose dependencies `pulumi install` put in uv's virtualenv."""

import asyncio
import binascii
import os

from pulumi import Output
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class RandomResourceProvider(ResourceProvider):
    def create(self, props):
        value = binascii.b2a_hex(os.urandom(15)).decode("ascii")
        return CreateResult(value, {"val": value})


class Random(Resource):
    val: str

    def __init__(self, name, opts=None):
        super().__init__(RandomResourceProvider(), name, {"val": ""}, opts)


r = Random("foo")

output = Output.from_input(asyncio.sleep(2, "magic_string"))
