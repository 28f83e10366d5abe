import pulumi


class Doomed(pulumi.CustomResource):
    """A sim resource whose create always fails (Pulumi's testprovider FailsOnCreate)."""

    def __init__(self, name: str):
        super().__init__("sim:index:Resource", name, {"failOn": ["create"]})


pulumi.export("xyz", "DEF")
Doomed("doomed")
pulumi.export("foo", 1)
