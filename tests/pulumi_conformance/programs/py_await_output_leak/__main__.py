"""As asyncio_tasks, then the program pumps the event loop itself until the SDK holds no
unresolved output (futures awaiting outputs must not leak, Pulumi issue 16055)."""

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

settings = pulumi.runtime.settings.SETTINGS
while True:
    pulumi.runtime.sync_await._sync_await(asyncio.sleep(0.2))
    with settings.lock:
        if not settings.outputs:
            break
