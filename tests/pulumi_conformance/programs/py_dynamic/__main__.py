"""A dynamic resource whose provider makes up a random hex value on create."""

import secrets

from pulumi import export
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class RandomHexProvider(ResourceProvider):
    def create(self, props):
        value = secrets.token_hex(15)
        return CreateResult(value, {"val": value})


class Random(Resource):
    val: str

    def __init__(self, name, opts=None):
        super().__init__(RandomHexProvider(), name, {"val": ""}, opts)


r = Random("foo")
export("random_id", r.id)
export("random_val", r.val)
