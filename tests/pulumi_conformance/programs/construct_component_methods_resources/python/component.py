"""The program's view of `testcomponent:index:Component` and its method `create_random`."""

from typing import Optional

import pulumi


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("testcomponent:index:Component", name, {}, opts, True)

    @pulumi.output_type
    class CreateRandomResult:
        def __init__(self, result: str):
            pulumi.set(self, "result", result)

        @property
        @pulumi.getter
        def result(self) -> str:
            return pulumi.get(self, "result")

    def create_random(self, length: pulumi.Input[int]) -> pulumi.Output["Component.CreateRandomResult"]:
        return pulumi.runtime.call(
            "testcomponent:index:Component/createRandom",
            {"__self__": self, "length": length},
            res=self,
            typ=Component.CreateRandomResult,
        )
