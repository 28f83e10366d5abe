import pulumi
import pulumi_random as random

name = random.RandomPet("name")
pulumi.export("name", name.id)
