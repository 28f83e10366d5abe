"""`MyComponent`: takes a `RecursiveTypeA` and hands back a `RecursiveTypeB` wrapping it, the two
types referring to each other."""

from typing import Optional, TypedDict

import pulumi


class RecursiveTypeA(TypedDict):
    b: Optional[pulumi.Input["RecursiveTypeB"]]


class RecursiveTypeB(TypedDict):
    a: Optional[pulumi.Input[RecursiveTypeA]]


class Args(TypedDict):
    rec: pulumi.Input[RecursiveTypeA]


class MyComponent(pulumi.ComponentResource):
    rec: pulumi.Output[RecursiveTypeB]

    def __init__(self, name: str, args: Args, opts: pulumi.ResourceOptions):
        super().__init__("component:index:MyComponent", name, {}, opts)
        self.rec = pulumi.Output.from_input({"a": args.get("rec")})
        self.register_outputs({})
