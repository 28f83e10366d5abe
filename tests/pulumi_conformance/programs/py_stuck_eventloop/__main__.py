"""One resource's transform raises while another's is still awaiting: the failed registration
ends the program, whose event loop then stops with the other transform's call outstanding.
The run must still end, with the raised error (`sim` stands in for the testprovider's Echo)."""

import asyncio

import pulumi

started = asyncio.Event()


class Echo(pulumi.CustomResource):
    def __init__(self, name, echo, opts=None):
        super().__init__("sim:index:Resource", name, {"echo": echo}, opts)


async def wait(args):
    started.set()
    # Longer than any run should last: only the SDK's shutdown of its callbacks ends this call.
    await asyncio.sleep(180)
    return pulumi.ResourceTransformResult(props=args.props, opts=args.opts)


async def fail(args):
    await started.wait()
    raise Exception("delay failed")


Echo("wait", "wait", pulumi.ResourceOptions(transforms=[wait]))
Echo("fail", "fail", pulumi.ResourceOptions(transforms=[fail]))
