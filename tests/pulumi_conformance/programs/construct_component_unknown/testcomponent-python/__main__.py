"""The Python component provider: `testcomponent:index:Component` must not see its unknown
inputs' values, so the applies on them must never run (the provider exits if they do)."""

import sys

import pulumi
import pulumi.provider as provider


def must_not_run(what: str):
    print(f"should not run ({what})")
    sys.exit(1)


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, inputs: pulumi.Inputs, opts=None):
        super().__init__("testcomponent:index:Component", name, {}, opts)
        pulumi.Output.from_input(inputs["message"]).apply(lambda _: must_not_run("message"))
        pulumi.Output.from_input(inputs["nested"]).apply(lambda _: must_not_run("nested"))


class Provider(provider.Provider):
    def __init__(self):
        super().__init__("0.0.1")

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {resource_type}")
        component = Component(name, inputs, options)
        return provider.ConstructResult(urn=component.urn, state={})


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
