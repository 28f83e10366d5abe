"""Hooks declared with the `@resource_hook` decorator: one after create, one before create that
also runs in previews (`sim` stands in for the testprovider's Random)."""

from typing import Optional

import pulumi
import pulumi.runtime


class Random(pulumi.CustomResource):
    def __init__(self, name: str, length: pulumi.Input[int], opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("sim:index:Resource", name, {"length": length}, opts)


@pulumi.resource_hook("after_create")
def after_create(args: pulumi.ResourceHookArgs) -> None:
    pulumi.log.info(f"after_create was called with length = {args.new_inputs.get('length')}")
    assert args.name == "res", f"hooked the wrong resource: {args.name}"
    assert args.type == "sim:index:Resource", f"wrong type: {args.type}"


@pulumi.resource_hook("before_create", pulumi.ResourceHookOptions(on_dry_run=True))
async def also_in_preview(args: pulumi.ResourceHookArgs):
    pulumi.log.info(f"hook called {pulumi.runtime.is_dry_run()}")


Random(
    "res",
    length=10,
    opts=pulumi.ResourceOptions(
        hooks=pulumi.ResourceHookBinding(before_create=[also_in_preview], after_create=[after_create])
    ),
)
