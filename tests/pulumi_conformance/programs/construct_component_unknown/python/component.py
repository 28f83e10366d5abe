"""The program's view of `testcomponent:index:Component`, whose inputs are a message and a
nested object."""

from typing import Optional

import pulumi


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, args: pulumi.Inputs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("testcomponent:index:Component", name, args, opts, True)
