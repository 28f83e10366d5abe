import time

import pulumi  # noqa: F401  (a Pulumi program, though it registers nothing)

print("Sleeping", flush=True)
time.sleep(30)
