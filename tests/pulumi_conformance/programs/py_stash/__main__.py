"""A stash remembers the first value it was given while its input follows the config."""

import pulumi

value = pulumi.Config().get("value") or "first"
stash = pulumi.Stash("remembered", input={"value": value, "n": 1})
pulumi.export("input", stash.input)
pulumi.export("output", stash.output)
