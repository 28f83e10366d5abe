"""A Python program constructing `greet:index:Greeting`, served by the component provider in
./provider (the Python SDK's `component_provider_host`), which `packages:` names by path as
`pulumi package add ./provider` records it."""

import pulumi


class Greeting(pulumi.ComponentResource):
    message: pulumi.Output[str]
    suffix: pulumi.Output[str]

    def __init__(self, name, who, length, opts=None):
        props = {"who": who, "length": length, "message": None, "suffix": None}
        super().__init__("greet:index:Greeting", name, props, opts, remote=True)


parent = pulumi.ComponentResource("ParentComponent", "parent")
greeting = Greeting("hi", "world", 6, pulumi.ResourceOptions(parent=parent))
pulumi.export("urn", greeting.urn)
pulumi.export("message", greeting.message)
pulumi.export("suffix", greeting.suffix)
