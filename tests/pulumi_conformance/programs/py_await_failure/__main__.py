import asyncio

import pulumi

# An apply that raises IndexError on the empty list the awaitable gives.
pulumi.Output.from_input(asyncio.sleep(0.5, [])).apply(lambda items: items[0])
