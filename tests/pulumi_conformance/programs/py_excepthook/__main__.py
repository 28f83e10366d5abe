"""A pulumi-random resource with a pass-through transform (Pulumi's issue 18176)."""

import pulumi
import pulumi_random as random


def unchanged(args: pulumi.ResourceTransformArgs) -> pulumi.ResourceTransformResult:
    return pulumi.ResourceTransformResult(props=args.props, opts=args.opts)


random.RandomInteger(
    "test",
    min=100,
    max=999,
    opts=pulumi.ResourceOptions(transforms=[unchanged]),
)
