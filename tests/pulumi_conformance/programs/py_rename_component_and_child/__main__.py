"""A component with a random child, named "first"."""
import pulumi
import pulumi_random as random


class Pair(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("conf:index:Pair", name, None, opts)
        self.pet = random.RandomPet(name + "-pet", opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({"pet": self.pet.id})


pair = Pair("first")
pulumi.export("pet", pair.pet.id)
