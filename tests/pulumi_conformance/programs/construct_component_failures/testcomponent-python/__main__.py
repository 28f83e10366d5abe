"""The Python component provider of `testcomponent:index:Component`: it makes the component,
then fails the construct with an input properties error naming `foo`."""

import sys

import pulumi
import pulumi.provider as provider


class Component(pulumi.ComponentResource):
    def __init__(self, name, foo, opts=None):
        super().__init__("testcomponent:index:Component", name, {}, opts)
        self.foo = pulumi.Output.from_input(foo)
        self.register_outputs({"foo": self.foo})


class Provider(provider.Provider):
    def __init__(self):
        super().__init__("0.0.1")

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {resource_type}")
        Component(name, inputs["foo"], options)
        raise pulumi.InputPropertiesError(
            "failing for a reason", [{"property_path": "foo", "reason": "the failure reason"}]
        )


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
