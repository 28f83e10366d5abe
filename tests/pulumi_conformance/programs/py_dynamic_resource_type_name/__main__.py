"""A dynamic resource class naming its own module and type name."""

from pulumi import export
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class NothingProvider(ResourceProvider):
    def create(self, props):
        return CreateResult("resource-id", {})


class CustomResource(Resource, module="custom-provider", name="CustomResource"):
    def __init__(self, name, opts=None):
        super().__init__(NothingProvider(), name, {}, opts)


export("urn", CustomResource("resource-name").urn)
