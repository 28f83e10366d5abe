"""A before-create hook sees a secret input as a secret output with its value (`sim` stands in
for the testprovider's Echo)."""

from typing import Any, Optional

import pulumi


class Echo(pulumi.CustomResource):
    def __init__(self, name: str, echo: pulumi.Input[Any], opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("sim:index:Resource", name, {"echo": echo}, opts)


async def check_secret(args: pulumi.ResourceHookArgs):
    echoed = args.new_inputs["echo"]
    assert await echoed.is_secret(), "the hook's input lost its secretness"
    assert await echoed.future() == "hello secret"
    pulumi.log.info("hook called")


Echo(
    "echo",
    echo=pulumi.Output.secret("hello secret"),
    opts=pulumi.ResourceOptions(hooks=pulumi.ResourceHookBinding(before_create=[check_secret])),
)
