import pulumi

assert pulumi.get_organization() is not None, "the program expects an organization"
pulumi.export("org", pulumi.get_organization())
