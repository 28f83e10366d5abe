"""Python `str` enums as a dynamic resource's inputs; its outputs typed by the class's
annotations come back as the enum."""

from enum import Enum
from typing import Optional

import pulumi
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class RubberTreeVariety(str, Enum):
    BURGUNDY = "Burgundy"
    RUBY = "Ruby"
    TINEKE = "Tineke"


class Farm(str, Enum):
    PLANTS_R_US = "Plants'R'Us"
    PULUMI_PLANTERS_INC = "Pulumi Planters Inc."


class Plants(ResourceProvider):
    created = 0

    def create(self, props):
        Plants.created += 1
        return CreateResult(str(Plants.created), props)


class Tree(Resource):
    type: pulumi.Output[RubberTreeVariety]
    farm: Optional[pulumi.Output[str]]

    def __init__(self, name, type, farm):
        super().__init__(Plants(), name, {"type": type, "farm": farm})


tree = Tree("myTree", type=RubberTreeVariety.BURGUNDY, farm=Farm.PULUMI_PLANTERS_INC)

pulumi.export("myTreeType", tree.type)
pulumi.export("myTreeFarmChanged", tree.farm.apply(lambda farm: farm + "foo"))
pulumi.export(
    "mySentence",
    pulumi.Output.all(tree.type, tree.farm).apply(
        lambda parts: f"My {parts[0].value} Rubber tree is from {parts[1]}"
    ),
)
