import asyncio

import pulumi

# Never exported: the run must still wait for it and its print.
pulumi.Output.from_input(asyncio.sleep(0.5, "the magic words")).apply(print)
