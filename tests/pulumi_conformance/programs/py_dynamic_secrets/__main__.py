"""A dynamic resource given a secret input: its inputs and outputs stay secret in the state."""
import pulumi
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class Vault(ResourceProvider):
    def create(self, props):
        return CreateResult("vault-1", {"password": props["password"], "length": len(props["password"])})


class Entry(Resource):
    password: pulumi.Output[str]
    length: pulumi.Output[int]

    def __init__(self, name, password, opts=None):
        super().__init__(Vault(), name, {"password": password, "length": None}, opts)


entry = Entry("entry", pulumi.Output.secret("s3cr3t-value"))
pulumi.export("password", entry.password)
pulumi.export("length", entry.length)
