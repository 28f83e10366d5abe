"""The `pairs` component provider written with the Python SDK: `pairs:index:Pair` makes two
random pets under a component, and its method `describe` answers a greeting."""

import sys

import pulumi
import pulumi.provider as provider
import pulumi_random as random


class Pair(pulumi.ComponentResource):
    def __init__(self, name, prefix, opts=None):
        super().__init__("pairs:index:Pair", name, {}, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.first = random.RandomPet(f"{name}-first", prefix=prefix, length=1, opts=child)
        self.second = random.RandomPet(f"{name}-second", prefix=prefix, length=1, opts=child)
        self.register_outputs({"first": self.first.id, "second": self.second.id})


class Pairs(provider.Provider):
    def __init__(self):
        super().__init__("0.0.1")

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "pairs:index:Pair":
            raise Exception(f"unknown resource type {resource_type}")
        pair = Pair(name, inputs["prefix"], options)
        return provider.ConstructResult(
            urn=pair.urn, state={"first": pair.first.id, "second": pair.second.id}
        )

    def call(self, token, args):
        if token != "pairs:index:Pair/describe":
            raise Exception(f"unknown method {token}")
        me = args["__self__"]
        urn = me.urn if isinstance(me, pulumi.Resource) else pulumi.Output.from_input(me)
        result = pulumi.Output.from_input(urn).apply(
            lambda u: f"{args['greeting']} from {u.split('::')[-1]}"
        )
        return provider.CallResult(outputs={"result": result})


if __name__ == "__main__":
    provider.main(Pairs(), sys.argv[1:])
