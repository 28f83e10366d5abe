"""The Python component provider of `testcomponent:index:Component`: the component finds its
package's provider among its options (a reference the SDK rehydrates through the resource
package registered here) and exports that provider's `message`."""

import sys

from semver import VersionInfo

import pulumi
import pulumi.provider as provider

VERSION = "0.0.1"


class Provider(pulumi.ProviderResource):
    message: pulumi.Output[str]

    def __init__(self, name, opts=None):
        super().__init__("testcomponent", name, {"message": None}, opts)


class Component(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("testcomponent:index:Component", name, {}, opts)
        mine = self.get_provider("testcomponent::")
        if not isinstance(mine, Provider):
            raise Exception(f"the component's provider is not a Provider: {mine}")
        self.message = mine.message
        self.register_outputs({"message": self.message})


class Package(pulumi.runtime.ResourcePackage):
    def version(self):
        return VersionInfo.parse(VERSION)

    def construct_provider(self, name, typ, urn):
        if typ != "pulumi:providers:testcomponent":
            raise Exception(f"unknown provider type {typ}")
        return Provider(name, pulumi.ResourceOptions(urn=urn))


class Server(provider.Provider):
    def __init__(self):
        super().__init__(VERSION)
        pulumi.runtime.register_resource_package("testcomponent", Package())

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {resource_type}")
        component = Component(name, options)
        return provider.ConstructResult(urn=component.urn, state={"message": component.message})


if __name__ == "__main__":
    provider.main(Server(), sys.argv[1:])
