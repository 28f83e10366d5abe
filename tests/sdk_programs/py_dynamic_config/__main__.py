"""A dynamic provider whose configure() reads the stack's configuration: a plain value of the
project, a secret, and a value of another namespace."""

import pulumi
from pulumi.dynamic import ConfigureRequest, CreateResult, Resource, ResourceProvider


class GreeterProvider(ResourceProvider):
    greeting = None
    token = None
    region = None

    def configure(self, req: ConfigureRequest):
        self.greeting = req.config.require("greeting")
        self.token = req.config.get("token")
        self.region = req.config.get("aws:region")

    def create(self, props):
        return CreateResult(
            "greeter-" + props["name"],
            {
                **props,
                "message": "%s, %s" % (self.greeting, props["name"]),
                "tokenLength": len(self.token or ""),
                "region": self.region,
            },
        )


class Greeter(Resource):
    message: pulumi.Output[str]
    tokenLength: pulumi.Output[int]
    region: pulumi.Output[str]

    def __init__(self, name, opts=None):
        super().__init__(
            GreeterProvider(),
            name,
            {"name": name, "message": None, "tokenLength": None, "region": None},
            opts,
        )


greeter = Greeter("world")
pulumi.export("message", greeter.message)
pulumi.export("tokenLength", greeter.tokenLength)
pulumi.export("region", greeter.region)
