import pulumi

pulumi.export("xyz", "ABC")
pulumi.export("foo", 42)
