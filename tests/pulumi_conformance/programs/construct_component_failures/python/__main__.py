"""A remote component whose construct fails with an error about its input `foo`."""

import pulumi


class Component(pulumi.ComponentResource):
    foo: pulumi.Output[str]

    def __init__(self, name, foo, opts=None):
        super().__init__("testcomponent:index:Component", name, {"foo": foo}, opts, True)


Component("component", foo="bar")
