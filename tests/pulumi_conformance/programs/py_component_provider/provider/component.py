"""`Greeting`: a message for `who`, and a random suffix of `length` characters made by a
`random:index:RandomString` child. Greeting "nobody" raises, from a method, as the component of
Pulumi's `component_provider/python/exception` does."""

from typing import Optional, TypedDict

import pulumi
import pulumi_random as random


class GreetingArgs(TypedDict):
    who: pulumi.Input[str]
    """Who is greeted."""
    length: Optional[pulumi.Input[int]]
    """How long the suffix is (4 when left out)."""


class Greeting(pulumi.ComponentResource):
    """A greeting with a random suffix."""

    message: pulumi.Output[str]
    suffix: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        args: GreetingArgs,
        opts: Optional[pulumi.ResourceOptions] = None,
    ):
        super().__init__("greet:index:Greeting", name, {}, opts)
        if args["who"] == "nobody":
            self.refuse(args["who"])
        suffix = random.RandomString(
            f"{name}-suffix",
            length=args.get("length") or 4,
            special=False,
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.message = pulumi.Output.from_input(args["who"]).apply(
            lambda who: f"hello, {who}".upper()
        )
        self.suffix = suffix.result
        self.register_outputs({"message": self.message, "suffix": self.suffix})

    def refuse(self, who: str) -> None:
        raise Exception(f"there is {who} to greet")
