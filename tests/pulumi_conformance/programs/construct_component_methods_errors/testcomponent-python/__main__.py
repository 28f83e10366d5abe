"""The Python component provider: the method `getMessage` of `testcomponent:index:Component`
answers with a check failure instead of outputs."""

import sys
from typing import Optional

import pulumi
import pulumi.provider as provider

VERSION = "0.0.1"


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("testcomponent:index:Component", name, {}, opts)


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
        return provider.CallResult(
            outputs={},
            failures=[provider.CheckFailure(property="the failure property", reason="the failure reason")],
        )


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
