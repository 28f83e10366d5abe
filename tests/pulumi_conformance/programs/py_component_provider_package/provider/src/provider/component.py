"""`MyComponent`: a component with one string input and no children."""

from typing import TypedDict

import pulumi


class Args(TypedDict):
    str_input: pulumi.Input[str]


class MyComponent(pulumi.ComponentResource):
    def __init__(self, name: str, args: Args, opts: pulumi.ResourceOptions):
        super().__init__("provider:index:MyComponent", name, {}, opts)
