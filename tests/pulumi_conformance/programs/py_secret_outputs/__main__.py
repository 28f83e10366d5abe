import pulumi
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class Echoing(ResourceProvider):
    def create(self, props):
        return CreateResult("only", {"motto": props["motto"]})


class Sign(Resource):
    motto: pulumi.Output[str]

    def __init__(self, name, motto, opts=None):
        super().__init__(Echoing(), name, {"motto": motto}, opts)


words = "nothing to hide here"
pulumi.export("plain", Sign("plain", pulumi.Output.from_input(words)))
pulumi.export("wrapped", Sign("wrapped", pulumi.Output.secret(words)))
pulumi.export("listed", Sign("listed", pulumi.Output.from_input(words),
                             pulumi.ResourceOptions(additional_secret_outputs=["motto"])))
