"""A parameterized package, as a generated parameterized SDK uses one: the program registers
`gadgets` 2.0.0 as the `widgets` 1.0.0 plugin parameterized with the value `blue`, then
creates a `gadgets:index:Gadget` through that package reference under the package's default
provider, and another under an explicit provider of the package; its function
`gadgets:index:getShade` is invoked through the package reference too."""

import base64

import pulumi
from pulumi.runtime import register_package


def gadgets():
    return register_package(
        "widgets", "1.0.0", "", "gadgets", "2.0.0", base64.b64encode(b"blue").decode()
    )


gadget = pulumi.CustomResource(
    "gadgets:index:Gadget", "g1", {"size": 3, "shade": None}, package_ref=gadgets()
)
explicit = pulumi.ProviderResource("gadgets", "explicit", {}, package_ref=gadgets())
pulumi.CustomResource(
    "gadgets:index:Gadget",
    "g2",
    {"size": 4, "shade": None},
    opts=pulumi.ResourceOptions(provider=explicit),
    package_ref=gadgets(),
)
pulumi.export("shade", gadget.shade)
shade = pulumi.runtime.invoke("gadgets:index:getShade", {}, package_ref=gadgets())
pulumi.export("invoked", shade.value["shade"])
