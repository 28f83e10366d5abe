import pulumi

pulumi.export("xyz", "DEF")

raise RuntimeError("the program gives up here")

pulumi.export("foo", 1)
