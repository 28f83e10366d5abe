"""A method call on a remote component (`getMessage`) that its provider fails with an error
about the input `foo`."""

import pulumi


class Component(pulumi.ComponentResource):
    foo: pulumi.Output[str]

    def __init__(self, name, foo, opts=None):
        super().__init__("testcomponent:index:Component", name, {"foo": foo}, opts, True)

    def get_message(self):
        return pulumi.runtime.call(
            "testcomponent:index:Component/getMessage", {"__self__": self}, res=self
        )


component = Component("component", foo="bar")
component.get_message()
