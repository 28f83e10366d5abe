"""Remote components constructed by an explicit provider configured with a message: one given
it as `provider`, one the child of a local component given it in `providers`. Default
providers are disabled, so neither may fall back to one."""

import pulumi


class Provider(pulumi.ProviderResource):
    def __init__(self, name, message, opts=None):
        super().__init__("testcomponent", name, {"message": message}, opts)


class Component(pulumi.ComponentResource):
    message: pulumi.Output[str]

    def __init__(self, name, opts=None):
        super().__init__("testcomponent:index:Component", name, {"message": None}, opts, True)


class LocalComponent(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("my:index:LocalComponent", name, {}, opts)
        child = Component(f"{name}-mycomponent", pulumi.ResourceOptions(parent=self))
        self.message = child.message


provider = Provider("myprovider", "hello world")
component = Component("mycomponent", pulumi.ResourceOptions(provider=provider))
local = LocalComponent("mylocalcomponent", pulumi.ResourceOptions(providers=[provider]))

pulumi.export("message", component.message)
pulumi.export("nestedMessage", local.message)
