"""The run waits for outputs (one computed on a thread), never for a bare asyncio task."""

import asyncio

import pulumi


async def answer() -> int:
    await asyncio.sleep(0.5)
    return 42


async def forever() -> None:
    while True:
        await asyncio.sleep(0.5)


pending = asyncio.create_task(forever())

exported = pulumi.Output.from_input([1, 2])
threaded = pulumi.Output.from_input(asyncio.to_thread(answer))
threaded.apply(lambda value: print("PRINT:", value))

pulumi.export("export", exported)
