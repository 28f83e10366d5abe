import asyncio

import pulumi

early = pulumi.Output.from_input(asyncio.sleep(0.5, "alpha"))
pulumi.export("early", early)
early.apply(print)

pulumi.Output.from_input(asyncio.sleep(1.0, "reached")).apply(print)

pulumi.Output.from_input(asyncio.sleep(3.0, "too late")).apply(print)

pulumi.Output.from_input(asyncio.sleep(1.5, [])).apply(lambda items: items[0])
