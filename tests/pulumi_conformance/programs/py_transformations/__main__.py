import asyncio

import pulumi
from pulumi import ComponentResource, Output, ResourceOptions, ResourceTransformationResult
from pulumi.runtime import register_stack_transformation

RAND = "sim:index:Resource"


class Rand(pulumi.CustomResource):
    """A sim resource standing in for the testprovider's Random (`length`, `prefix`)."""

    result: pulumi.Output[str]

    def __init__(self, name, length, opts=None):
        super().__init__(RAND, name, {"length": length, "prefix": None, "result": None}, opts)


class Pair(ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("my:component:Pair", name, {}, opts)
        Rand(f"{name}-kid", 5, ResourceOptions(parent=self, additional_secret_outputs=["length"]))
        self.register_outputs({})


class Twins(ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("my:component:Twins", name, {}, opts)
        Rand(f"{name}-one", 5, ResourceOptions(parent=self))
        Rand(f"{name}-two", 5, ResourceOptions(parent=self))
        self.register_outputs({})


def secret_result(args):
    return ResourceTransformationResult(
        props=args.props,
        opts=ResourceOptions.merge(args.opts, ResourceOptions(additional_secret_outputs=["result"])))


# A resource's own transformation.
Rand("solo", 5, ResourceOptions(transformations=[secret_result]))


def rand_secret_result(args):
    if args.type_ == RAND:
        return ResourceTransformationResult(
            props={"prefix": "fromParent", **args.props},
            opts=ResourceOptions.merge(args.opts, ResourceOptions(additional_secret_outputs=["result"])))
    return None


# A component's transformation reaches its child.
Pair("paired", ResourceOptions(transformations=[rand_secret_result]))


def stack_prefix(args):
    if args.type_ == RAND:
        return ResourceTransformationResult(props={**args.props, "prefix": "fromStack"}, opts=args.opts)
    return None


register_stack_transformation(stack_prefix)

# The stack's transformation applies to resources registered after it.
Rand("late", 5)


def prefixer(value):
    def transform(args):
        if args.type_ == RAND:
            return ResourceTransformationResult(props={**args.props, "prefix": value}, opts=args.opts)
        return None
    return transform


# Two component transformations, then the stack's: the stack's wins.
Pair("layered", ResourceOptions(transformations=[prefixer("first"), prefixer("second")]))


def one_waits_for_two():
    two = asyncio.Future()

    def transform(args):
        if args.name.endswith("-two"):
            two.set_result(args.resource)
            return None
        if args.name.endswith("-one"):
            async def after_two(length):
                if length != 5:
                    raise ValueError(f"unexpected length {length}")
                return (await two).urn

            return ResourceTransformationResult(
                props={**args.props, "prefix": Output.from_input(args.props["length"]).apply(after_two)},
                opts=args.opts)
        return None

    return transform


# A transformation makes one child wait for its sibling.
Twins("twins", ResourceOptions(transformations=[one_waits_for_two()]))
