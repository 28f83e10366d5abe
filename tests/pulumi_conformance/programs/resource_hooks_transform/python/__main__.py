"""A transform binds a plain function as an after-create hook of a resource and of a remote
component; the component's transform also reaches the child its provider registers. `sim`
stands in for the testprovider's Random, `testcomponent` for its Component."""

from typing import Optional

import pulumi

RANDOM = "sim:index:Resource"
COMPONENT = "testcomponent:index:Component"


class Random(pulumi.CustomResource):
    def __init__(self, name: str, length: pulumi.Input[int], opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(RANDOM, name, {"length": length}, opts)


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, length: pulumi.Input[int], opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(COMPONENT, name, {"length": length, "childId": None}, opts, True)


def fun(args: pulumi.ResourceHookArgs) -> None:
    if args.name == "res":
        pulumi.log.info(f"fun was called with length = {args.new_inputs.get('length')}")
        assert args.type == RANDOM, f"expected {RANDOM}, got {args.type}"
    elif args.name == "comp":
        child_id = args.new_outputs.get("childId")
        pulumi.log.info(f"fun_comp was called with child = {child_id}")
        if not child_id:
            raise ValueError(f"expected a child id, got {child_id!r}")
        assert args.type == COMPONENT, f"expected {COMPONENT}, got {args.type}"
    elif args.name == "child-comp":
        pulumi.log.info(f"fun_child was called with length = {args.new_inputs.get('length')}")
        assert args.type == RANDOM, f"expected {RANDOM}, got {args.type}"
    else:
        raise Exception(f"hook called for an unexpected resource: {args.name}")


# Registered under its own name and never bound, as in Pulumi's program.
named = pulumi.ResourceHook("hook_fun", fun)


def transform(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult:
    opts = args.opts
    opts.hooks = pulumi.ResourceHookBinding.merge(opts.hooks, pulumi.ResourceHookBinding(after_create=[fun]))
    return pulumi.ResourceTransformResult(props=args.props, opts=opts)


Random("res", length=10, opts=pulumi.ResourceOptions(transforms=[transform]))
Component("comp", length=7, opts=pulumi.ResourceOptions(transforms=[transform]))
