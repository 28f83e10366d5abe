import pulumi

pair = pulumi.Output.from_input([1, 2])

# One output exported under two names.
pulumi.export("first", pair)
pulumi.export("again", pair)
