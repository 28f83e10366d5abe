"""The component renamed to "second", its child renamed too; aliases keep both."""
import pulumi
import pulumi_random as random


class Pair(pulumi.ComponentResource):
    def __init__(self, name, old_name, opts=None):
        super().__init__("conf:index:Pair", name, None, opts)
        self.pet = random.RandomPet(
            name + "-pet",
            opts=pulumi.ResourceOptions(parent=self, aliases=[pulumi.Alias(name=old_name + "-pet")]),
        )
        self.register_outputs({"pet": self.pet.id})


pair = Pair("second", "first", pulumi.ResourceOptions(aliases=[pulumi.Alias(name="first")]))
pulumi.export("pet", pair.pet.id)
