import asyncio

import pulumi

pulumi.Output.from_input(asyncio.sleep(1.0, "the magic words")).apply(print)

shown = pulumi.Output.from_input(asyncio.sleep(0.5, "alpha"))
pulumi.export("shown", shown)
shown.apply(print)

pulumi.Output.from_input(asyncio.sleep(1.5, "omega")).apply(print)
