"""A Python program constructing a component of the Node.js component provider `pairs`
(provider/index.js): the component and its children are registered by the provider."""

import pulumi


class Pair(pulumi.ComponentResource):
    first: pulumi.Output[str]
    second: pulumi.Output[str]

    def __init__(self, name, prefix, opts=None):
        props = {"prefix": prefix, "first": None, "second": None}
        super().__init__("pairs:index:Pair", name, props, opts, remote=True)


pair = Pair("pair", "p")
pulumi.export("first", pair.first)
pulumi.export("second", pair.second)
