"""The Python component provider: the method `createRandom` of `testcomponent:index:Component`
makes `myrandom` under the component (the built-in random provider's RandomString stands in for
the Go testprovider's `Random`: a `result` of `length` characters) and answers its result."""

import sys
from typing import Optional

import pulumi
import pulumi.provider as provider

VERSION = "0.0.1"


class Random(pulumi.CustomResource):
    def __init__(self, name: str, length: pulumi.Input[int], opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("random:index/randomString:RandomString", name, {"length": length, "result": None}, opts)

    @property
    @pulumi.getter
    def result(self) -> pulumi.Output[str]:
        return pulumi.get(self, "result")


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("testcomponent:index:Component", name, {}, opts)

    def create_random(self, length: pulumi.Input[int]) -> pulumi.Output[str]:
        return Random("myrandom", length, pulumi.ResourceOptions(parent=self)).result


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
        if token != "testcomponent:index:Component/createRandom":
            raise Exception(f"unknown method {token}")
        component: Component = args["__self__"]
        return provider.CallResult(outputs={"result": component.create_random(args["length"])})


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
