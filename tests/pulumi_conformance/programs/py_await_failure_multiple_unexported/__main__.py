"""Unexported outputs resolving at different times; the apply that raises (third) fails the
run, so the output due after it is never printed."""

import asyncio

import pulumi

pulumi.Output.from_input(asyncio.sleep(1.5, [])).apply(lambda items: items[0])

pulumi.Output.from_input(asyncio.sleep(0.5, "foo")).apply(print)
pulumi.Output.from_input(asyncio.sleep(1.0, "printed")).apply(print)
pulumi.Output.from_input(asyncio.sleep(3.0, "not printed")).apply(print)
