"""The Python component provider of `testcomponent:index:Component`: constructs succeed, and
the method `getMessage` fails with an input property error naming `foo`."""

import sys

import pulumi
import pulumi.provider as provider


class Component(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("testcomponent:index:Component", name, {}, opts)
        if opts and opts.urn:
            return
        self.register_outputs({})


class Module(pulumi.runtime.ResourceModule):
    def version(self):
        return "0.0.1"

    def construct(self, name, typ, urn):
        if typ != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {typ}")
        return Component(name, pulumi.ResourceOptions(urn=urn))


class Provider(provider.Provider):
    def __init__(self):
        super().__init__("0.0.1")
        pulumi.runtime.register_resource_module("testcomponent", "index", Module())

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {resource_type}")
        component = Component(name, options)
        return provider.ConstructResult(urn=component.urn, state=inputs)

    def call(self, token, args):
        if token != "testcomponent:index:Component/getMessage":
            raise Exception(f"unknown method {token}")
        raise pulumi.InputPropertyError("foo", "the failure reason")


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
