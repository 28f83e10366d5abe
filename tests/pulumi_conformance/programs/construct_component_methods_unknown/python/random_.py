"""A resource whose id is unknown until it is created (a sim resource stands in for the Go
testprovider's `Random`)."""

from typing import Optional

import pulumi


class Random(pulumi.CustomResource):
    def __init__(self, name: str, length: pulumi.Input[int], opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("sim:index:Resource", name, {"length": length}, opts)
