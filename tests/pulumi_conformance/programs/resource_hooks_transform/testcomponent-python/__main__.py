"""A Python stand-in for the Go testprovider's remote `Component` of `resource_hooks/*_transform`:
the component registers a `sim:index:Resource` child `child-<name>` (for the testprovider's
`Random`) with the component's `length`, and its output `childId` is the child's ID. The
component takes the options Construct gives, hooks among them."""

import sys

import pulumi
import pulumi.provider as provider

COMPONENT = "testcomponent:index:Component"


class Component(pulumi.ComponentResource):
    def __init__(self, name, length, opts=None):
        super().__init__(COMPONENT, name, {}, opts)
        child = pulumi.CustomResource(
            "sim:index:Resource",
            f"child-{name}",
            {"length": length},
            pulumi.ResourceOptions(parent=self),
        )
        self.length = length
        self.child_id = child.id
        self.register_outputs({"length": length, "childId": child.id})


class Provider(provider.Provider):
    def __init__(self):
        super().__init__("0.0.1")

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != COMPONENT:
            raise Exception(f"unknown resource type {resource_type}")
        component = Component(name, inputs["length"], options)
        return provider.ConstructResult(
            urn=component.urn,
            state={"length": component.length, "childId": component.child_id},
        )


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
