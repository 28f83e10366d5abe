"""A remote component given its package's provider in `providers`: the component provider
rehydrates that provider and answers with the provider's `message`."""

import pulumi


class Provider(pulumi.ProviderResource):
    def __init__(self, name, message, opts=None):
        super().__init__("testcomponent", name, {"message": message}, opts)


class Component(pulumi.ComponentResource):
    message: pulumi.Output[str]

    def __init__(self, name, opts=None):
        super().__init__("testcomponent:index:Component", name, {"message": None}, opts, True)


component = Component(
    "mycomponent",
    pulumi.ResourceOptions(providers={"testcomponent": Provider("myprovider", "hello world")}),
)

pulumi.export("message", component.message)
