"""Reads another stack's plain and secret outputs through a stack reference and the
readStackOutputs and readStackResourceOutputs functions, and rehydrates one of its own resources by URN
(pulumi:pulumi:getResource)."""

import pulumi
import pulumi_random as random

net = pulumi.StackReference("organization/net/prod")

pulumi.export("petName", net.get_output("petName"))
pulumi.export("token", net.get_output("token"))
pulumi.export("tokenIsSecret", net.secret_output_names.apply(lambda n: "token" in n))

read = pulumi.runtime.invoke(
    "pulumi:pulumi:readStackOutputs", {"name": "organization/net/prod"}
).value
pulumi.export("readPetName", read["outputs"]["petName"])
pulumi.export("readSecretNames", read["secretOutputNames"])

resources = pulumi.runtime.invoke(
    "pulumi:pulumi:readStackResourceOutputs",
    {"stackName": "organization/net/prod"},
).value
pulumi.export(
    "netTypes",
    sorted({r["type"] for r in resources["outputs"].values()}),
)

local = random.RandomPet("local", length=2)


def rehydrate(urn):
    """The same pet, looked up by URN once it is registered."""
    return random.RandomPet("local", opts=pulumi.ResourceOptions(urn=urn)).id


pulumi.export("local", local.id)
pulumi.export("rehydrated", local.urn.apply(rehydrate))
