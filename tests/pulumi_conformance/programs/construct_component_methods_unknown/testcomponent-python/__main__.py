"""The Python component provider: the method `getMessage` of `testcomponent:index:Component`
applies on its argument, which must not run while the argument is unknown (the provider exits
if it does)."""

import sys
from typing import Optional

import pulumi
import pulumi.provider as provider

VERSION = "0.0.1"


def must_not_run(what: str):
    print(f"should not run ({what})")
    sys.exit(1)


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("testcomponent:index:Component", name, {}, opts)

    def get_message(self, echo: pulumi.Input[str]) -> pulumi.Output[str]:
        return pulumi.Output.from_input(echo).apply(lambda _: must_not_run("echo"))


class Module(pulumi.runtime.ResourceModule):
    def version(self):
        return VERSION

    def construct(self, name: str, typ: str, urn: str) -> pulumi.Resource:
        if typ != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {typ}")
        return Component(name, pulumi.ResourceOptions(urn=urn))


class Provider(provider.Provider):
    def __init__(self):
        super().__init__(VERSION)
        pulumi.runtime.register_resource_module("testcomponent", "index", Module())

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {resource_type}")
        component = Component(name, options)
        return provider.ConstructResult(urn=component.urn, state=inputs)

    def call(self, token, args):
        if token != "testcomponent:index:Component/getMessage":
            raise Exception(f"unknown method {token}")
        component: Component = args["__self__"]
        return provider.CallResult(outputs={"message": component.get_message(args["echo"])})


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
