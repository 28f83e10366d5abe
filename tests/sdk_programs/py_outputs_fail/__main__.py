"""Exports `first`, `second` and `third` from config `gen`; with config `fail` set it exports
only `first` and then fails."""

import pulumi

config = pulumi.Config()
gen = config.get("gen") or "1"
pulumi.export("first", "first@" + gen)
if config.get_bool("fail"):
    raise Exception("failing after the first output")
pulumi.export("second", "second@" + gen)
pulumi.export("third", "third@" + gen)
