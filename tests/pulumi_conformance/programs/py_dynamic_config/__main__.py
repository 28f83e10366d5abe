"""A dynamic provider configured from the stack's config: configure() sees every key."""
import pulumi
from pulumi.dynamic import ConfigureRequest, CreateResult, Resource, ResourceProvider


class Prefixer(ResourceProvider):
    prefix = None

    def configure(self, req: ConfigureRequest):
        self.prefix = req.config.require("prefix")

    def create(self, props):
        return CreateResult("p-" + props["name"], {"name": props["name"], "full": self.prefix + props["name"]})


class Prefixed(Resource):
    full: pulumi.Output[str]

    def __init__(self, name):
        super().__init__(Prefixer(), name, {"name": name, "full": None})


pulumi.export("full", Prefixed("thing").full)
