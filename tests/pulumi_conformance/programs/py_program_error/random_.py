"""A sim resource standing in for Pulumi's testprovider Random."""

import pulumi


class Random(pulumi.CustomResource):
    length: pulumi.Output[int]

    def __init__(self, name, length, opts=None):
        super().__init__("sim:index:Resource", name, {"length": length}, opts)
