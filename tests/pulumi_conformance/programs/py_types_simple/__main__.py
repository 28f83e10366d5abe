"""Input and output types declared with annotations and `pulumi.property`: an object input
given as the input type, as another resource's outputs (by attribute and by key), or as a
plain dict, comes back as the output type."""

from typing import Optional

import pulumi
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


@pulumi.input_type
class AdditionalArgs:
    first_value: pulumi.Input[str] = pulumi.property("firstValue")
    second_value: Optional[pulumi.Input[float]] = pulumi.property("secondValue", default=None)


@pulumi.output_type
class Additional(dict):
    first_value: str = pulumi.property("firstValue")
    second_value: Optional[float] = pulumi.property("secondValue", default=None)


class Echo(ResourceProvider):
    made = 0

    def create(self, props):
        Echo.made += 1
        return CreateResult(str(Echo.made), {"additional": props["additional"]})


class MyResource(Resource):
    additional: pulumi.Output[Additional]

    def __init__(self, name, additional):
        super().__init__(Echo(), name, {"additional": additional})


res = MyResource("testres", AdditionalArgs(first_value="hello", second_value=42))
res2 = MyResource(
    "testres2",
    AdditionalArgs(
        first_value=res.additional.first_value, second_value=res.additional.second_value
    ),
)
res3 = MyResource(
    "testres3",
    AdditionalArgs(
        first_value=res.additional["first_value"],
        second_value=res.additional["second_value"],
    ),
)
# A dict's keys are the wire names: nothing translates them.
res4 = MyResource("testres4", {"firstValue": "hello", "secondValue": 42})

for prefix, r in [("res", res), ("res2", res2), ("res3", res3), ("res4", res4)]:
    pulumi.export(f"{prefix}_first_value", r.additional.first_value)
    pulumi.export(f"{prefix}_second_value", r.additional.second_value)
