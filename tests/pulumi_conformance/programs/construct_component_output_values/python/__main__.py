"""The component `testcomponent:index:Component`, remote: its provider checks that each input
arrives as a plain value, except the secret tag, which arrives as an output."""

import pulumi


class Component(pulumi.ComponentResource):
    def __init__(self, name, args, opts=None):
        super().__init__("testcomponent:index:Component", name, args, opts, remote=True)


Component(
    "component",
    {
        "foo": {"something": "hello"},
        "bar": {"tags": {"a": "world", "b": pulumi.Output.secret("shh")}},
    },
)
