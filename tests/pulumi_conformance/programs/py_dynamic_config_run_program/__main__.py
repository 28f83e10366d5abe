"""A dynamic provider whose refresh and delete show the `prefix` config it was configured with:
a read reports it as `seen`, a delete appends it to the file the `log` config names."""
import pulumi
from pulumi.dynamic import ConfigureRequest, CreateResult, ReadResult, Resource, ResourceProvider


class Prefixer(ResourceProvider):
    prefix = None
    log = None

    def configure(self, req: ConfigureRequest):
        self.prefix = req.config.require("prefix")
        self.log = req.config.require("log")

    def create(self, props):
        return CreateResult("p-" + props["name"], {"name": props["name"], "seen": self.prefix})

    def read(self, id_, props):
        return ReadResult(id_, {"name": props["name"], "seen": self.prefix})

    def delete(self, id_, props):
        with open(self.log, "a", encoding="utf-8") as f:
            f.write(self.prefix + "\n")


class Prefixed(Resource):
    seen: pulumi.Output[str]

    def __init__(self, name):
        super().__init__(Prefixer(), name, {"name": name, "seen": None})


pulumi.export("seen", Prefixed("thing").seen)
