"""A Python stand-in for Pulumi's Go `testcomponent` of
`construct_component_provider_propagation`: each component gets a `sim:index:Resource` child
of its own name (where Pulumi's has a `testprovider:index:Random`), which takes its provider
from the options the component was constructed with; the component's `result` is the
child's ID."""

import sys

import pulumi
import pulumi.provider as provider


class Component(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("testcomponent:index:Component", name, {}, opts)
        child = pulumi.CustomResource(
            "sim:index:Resource", name, {"echo": 10}, pulumi.ResourceOptions(parent=self)
        )
        self.result = child.id
        self.register_outputs({"result": self.result})


class Provider(provider.Provider):
    def __init__(self):
        super().__init__("0.0.1")

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {resource_type}")
        component = Component(name, options)
        return provider.ConstructResult(urn=component.urn, state={"result": component.result})


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
