"""The program's view of `testcomponent:index:Component` and its method `get_message`."""

from typing import Optional

import pulumi


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("testcomponent:index:Component", name, {}, opts, True)

    @pulumi.output_type
    class GetMessageResult:
        def __init__(self, message: str):
            pulumi.set(self, "message", message)

        @property
        @pulumi.getter
        def message(self) -> str:
            return pulumi.get(self, "message")

    def get_message(self, echo: pulumi.Input[str]) -> pulumi.Output["Component.GetMessageResult"]:
        return pulumi.runtime.call(
            "testcomponent:index:Component/getMessage",
            {"__self__": self, "echo": echo},
            res=self,
            typ=Component.GetMessageResult,
        )
