"""A resource whose delete always fails, deleted with another: destroying the stack deletes
only the other (sim resources standing in for Pulumi's testprovider Random and
FailsOnDelete)."""

import pulumi


class Random(pulumi.CustomResource):
    length: pulumi.Output[int]

    def __init__(self, name, length, opts=None):
        super().__init__("sim:index:Resource", name, {"length": length}, opts)


class FailsOnDelete(pulumi.CustomResource):
    def __init__(self, name, opts=None):
        super().__init__("sim:index:Resource", name, {"failOn": ["delete"]}, opts)


rand = Random("random", length=10)
FailsOnDelete("failsondelete", opts=pulumi.ResourceOptions(deleted_with=rand))
