"""Input and output types declared with `__init__`, `pulumi.set` and `pulumi.getter`
properties (some with empty bodies): an object input given as the input type, as another
resource's outputs (by attribute and by key), or as a plain dict, comes back as the output
type."""

from typing import Optional

import pulumi
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


@pulumi.input_type
class AdditionalArgs:
    def __init__(self, first_value, second_value=None):
        pulumi.set(self, "first_value", first_value)
        pulumi.set(self, "second_value", second_value)

    @property
    @pulumi.getter(name="firstValue")
    def first_value(self) -> pulumi.Input[str]: ...

    @first_value.setter
    def first_value(self, value: pulumi.Input[str]): ...

    @property
    @pulumi.getter(name="secondValue")
    def second_value(self) -> Optional[pulumi.Input[float]]:
        return pulumi.get(self, "second_value")

    @second_value.setter
    def second_value(self, value: Optional[pulumi.Input[float]]):
        pulumi.set(self, "second_value", value)


@pulumi.output_type
class Additional(dict):
    def __init__(self, first_value: str, second_value: Optional[float]):
        pulumi.set(self, "first_value", first_value)
        pulumi.set(self, "second_value", second_value)

    @property
    @pulumi.getter(name="firstValue")
    def first_value(self) -> str: ...

    @property
    @pulumi.getter(name="secondValue")
    def second_value(self) -> Optional[float]:
        return pulumi.get(self, "second_value")


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
res4 = MyResource("testres4", {"firstValue": "hello", "secondValue": 42})

for prefix, r in [("res", res), ("res2", res2), ("res3", res3), ("res4", res4)]:
    pulumi.export(f"{prefix}_first_value", r.additional.first_value)
    pulumi.export(f"{prefix}_second_value", r.additional.second_value)
