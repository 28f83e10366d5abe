import asyncio

import pulumi


async def fails():
    await asyncio.sleep(0)
    raise ValueError("not this time")


async def recovers():
    try:
        await fails()
    except ValueError:
        return "recovered nicely"


pulumi.Output.from_input(recovers()).apply(print)
