import pulumi

pulumi.export("foo", "bar")
