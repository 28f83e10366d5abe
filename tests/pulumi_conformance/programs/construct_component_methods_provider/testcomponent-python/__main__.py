"""The Python component provider: `testcomponent:index:Component` keeps its inputs `first` and
`second` as outputs; its method `getMessage` runs on the component rehydrated from the
reference the program passes (`__self__`), through the resource module registered here."""

import sys
from typing import Optional

import pulumi
import pulumi.provider as provider

VERSION = "0.0.1"


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions] = None, first=None, second=None):
        args = {"first": first, "second": second}
        super().__init__("testcomponent:index:Component", name, args, opts)
        if opts and opts.urn:
            return
        self.register_outputs(args)

    @property
    @pulumi.getter
    def first(self) -> pulumi.Output[str]:
        return pulumi.get(self, "first")

    @property
    @pulumi.getter
    def second(self) -> pulumi.Output[str]:
        return pulumi.get(self, "second")

    def get_message(self, name: pulumi.Input[str]) -> pulumi.Output[str]:
        return pulumi.Output.concat(self.first, " ", self.second, ", ", name, "!")


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
        component = Component(name, options, first=inputs["first"], second=inputs["second"])
        return provider.ConstructResult(urn=component.urn, state=inputs)

    def call(self, token, args):
        if token != "testcomponent:index:Component/getMessage":
            raise Exception(f"unknown method {token}")
        component: Component = args["__self__"]
        return provider.CallResult(outputs={"message": component.get_message(args["name"])})


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
