import pulumi
from pulumi import Output, ResourceOptions
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class Keep(ResourceProvider):
    def create(self, props):
        return CreateResult("kept", props)


class Stored(Resource):
    label: Output
    code: Output

    def __init__(self, name, props, opts=None):
        super().__init__(Keep(), name, props, opts)


class ByUrn(pulumi.Resource):
    """The same resource looked up by URN (`pulumi:pulumi:getResource`)."""

    label: Output
    code: Output

    def __init__(self, urn):
        props = {"label": None, "code": None}
        super().__init__("unused", "unused:unused:unused", True, props, ResourceOptions(urn=urn), False, False)


stored = Stored("stored", {"label": "on the shelf", "code": Output.secret("s3cr3t-c0de")})


async def look_up():
    found = ByUrn(await stored.urn.future())
    assert await found.label.future() == "on the shelf"
    assert await found.code.is_secret()
    return "looked up"


pulumi.export("lookup", look_up())
