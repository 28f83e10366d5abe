import pulumi


class Doomed(pulumi.CustomResource):
    """A sim resource whose create always fails (Pulumi's testprovider FailsOnCreate)."""

    value: pulumi.Output[int]

    def __init__(self, name: str):
        super().__init__("sim:index:Resource", name, {"failOn": ["create"], "value": None})


pulumi.export("xyz", "DEF")
pulumi.export("foo", Doomed("doomed").value)
