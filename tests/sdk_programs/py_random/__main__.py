"""Random resources feeding each other, a component with a child, a local command, config,
secret config and stack outputs."""

import pulumi
import pulumi_command as command
import pulumi_random as random

config = pulumi.Config()
greeting = config.get("greeting") or "hello"
token = config.require_secret("token")
keeper = config.get("keeper") or "k1"


class Pair(pulumi.ComponentResource):
    """A component owning one child string."""

    def __init__(self, name, seed, opts=None):
        super().__init__("stepdeck:test:Pair", name, None, opts)
        self.child = random.RandomString(
            f"{name}-child",
            length=4,
            special=False,
            keepers={"seed": seed},
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.register_outputs({"childResult": self.child.result})


first = random.RandomString("first", length=8, special=False)
second = random.RandomString(
    "second",
    length=6,
    special=False,
    keepers={"from": first.result, "keeper": keeper},
)
pair = Pair("pair", first.result)
echo = command.local.Command(
    "echo", create=f"echo {greeting} $FIRST", environment={"FIRST": first.result}
)

print("program says " + greeting)
pulumi.export("greeting", greeting)
pulumi.export("first", first.result)
pulumi.export("second", second.result)
pulumi.export("child", pair.child.result)
pulumi.export("echoed", echo.stdout)
pulumi.export("token", token)
