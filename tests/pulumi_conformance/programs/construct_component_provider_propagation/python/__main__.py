"""Four remote components, each with a `sim:index:Resource` child of the same name: one left
to the default sim provider, three given an explicit one (as `provider`, in a `providers`
list, in a `providers` map); each child must use the provider its component was given."""

import pulumi


class Component(pulumi.ComponentResource):
    result: pulumi.Output[str]

    def __init__(self, name, opts=None):
        super().__init__("testcomponent:index:Component", name, {"result": None}, opts, remote=True)


class SimProvider(pulumi.ProviderResource):
    def __init__(self, name, opts=None):
        super().__init__("sim", name, {}, opts)


explicit = SimProvider("explicit")

Component("uses_default")
Component("uses_provider", pulumi.ResourceOptions(provider=explicit))
Component("uses_providers", pulumi.ResourceOptions(providers=[explicit]))
Component("uses_providers_map", pulumi.ResourceOptions(providers={"sim": explicit}))
