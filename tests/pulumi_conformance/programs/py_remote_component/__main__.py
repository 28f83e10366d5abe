"""A Python program constructing a component of the Node.js component provider `pairs`
(provider/index.js): the component and its children are registered by the provider, and a
method call on the component is answered by it."""

import pulumi


class Pair(pulumi.ComponentResource):
    first: pulumi.Output[str]
    second: pulumi.Output[str]

    def __init__(self, name, prefix, opts=None):
        props = {"prefix": prefix, "first": None, "second": None}
        super().__init__("pairs:index:Pair", name, props, opts, remote=True)

    def describe(self, greeting):
        """A method of the component, run by its provider (`Call`)."""
        args = {"__self__": self, "greeting": greeting}
        return pulumi.runtime.call("pairs:index:Pair/describe", args, res=self).apply(
            lambda r: r["result"]
        )


pair = Pair("pair", "p")
pulumi.export("first", pair.first)
pulumi.export("second", pair.second)
pulumi.export("described", pair.describe("hello"))
