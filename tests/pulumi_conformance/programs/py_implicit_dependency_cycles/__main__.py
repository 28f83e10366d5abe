"""A component's child depending on the component itself, and a sibling taking that child's
URN: a dependency cycle the SDK must name instead of hanging (Pulumi issue 13551)."""

import pulumi


class Holder(pulumi.ComponentResource):
    def __init__(self, name: str, opts=None):
        super().__init__("my:modules:A", name, {}, opts)
        first = pulumi.CustomResource(
            "my:module:Child-1",
            "a-child-1",
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self]),
        )
        pulumi.CustomResource(
            "my:module:Child-2",
            "a-child-2",
            props={"transitive_urn": first.urn},
            opts=pulumi.ResourceOptions(parent=self),
        )


Holder("a")
