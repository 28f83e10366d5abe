"""Sim resources standing in for Pulumi's testprovider Echo and FailsOnCreate."""

import pulumi


class Echo(pulumi.CustomResource):
    def __init__(self, name, echo, opts=None):
        super().__init__("sim:index:Resource", name, {"echo": echo}, opts)


class FailsOnCreate(pulumi.CustomResource):
    def __init__(self, name, opts=None):
        super().__init__("sim:index:Resource", name, {"failOn": ["create"]}, opts)


class Holder(pulumi.ComponentResource):
    def __init__(self, name):
        super().__init__("my:index:Holder", name)
