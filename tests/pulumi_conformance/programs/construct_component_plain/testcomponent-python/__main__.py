"""The Python component provider: `testcomponent:index:Component` makes `children` echo
resources under itself (sim resources stand in for the Go testprovider's `Echo`)."""

import sys
from typing import Optional

import pulumi
import pulumi.provider as provider


class Echo(pulumi.CustomResource):
    def __init__(self, name: str, echo: pulumi.Input, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("sim:index:Resource", name, {"echo": echo}, opts)


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, children: int, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("testcomponent:index:Component", name, {}, opts)
        for i in range(1, children + 1):
            Echo(f"child-{name}-{i}", i, pulumi.ResourceOptions(parent=self))


class Provider(provider.Provider):
    def __init__(self):
        super().__init__("0.0.1")

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {resource_type}")
        component = Component(name, int(inputs.get("children", 0)), options)
        return provider.ConstructResult(urn=component.urn, state={})


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
