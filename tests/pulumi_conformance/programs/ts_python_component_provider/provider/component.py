"""MyComponent: outputs computed from an input of each kind the schema can describe (string,
optional integer, object with a nested object, list, map, asset, archive, enum)."""

from enum import Enum
from typing import Optional, TypedDict

import pulumi


class Emu(Enum):
    """A or B"""

    A = "a"
    B = "b"


class Nested(TypedDict):
    """An object inside an object"""

    str_plain: str
    """A plain string"""


class Complex(TypedDict):
    """An object input"""

    str_input: pulumi.Input[str]
    nested_input: pulumi.Input[Nested]


class NestedOutput(TypedDict):
    value: str


class ComplexOutput(TypedDict):
    str_value: str
    nested_value: pulumi.Output[NestedOutput]


class Args(TypedDict):
    str_input: pulumi.Input[str]
    """A string input"""
    optional_int_input: Optional[pulumi.Input[int]]
    complex_input: Optional[pulumi.Input[Complex]]
    list_input: pulumi.Input[list[str]]
    dict_input: pulumi.Input[dict[str, int]]
    asset_input: pulumi.Input[pulumi.Asset]
    archive_input: pulumi.Input[pulumi.Archive]
    enum_input: pulumi.Input[Emu]


def shouted(asset):
    if isinstance(asset, pulumi.StringAsset):
        return pulumi.StringAsset(asset.text.upper())
    raise ValueError(f"not a string asset: {asset.__class__.__name__}")


class MyComponent(pulumi.ComponentResource):
    """A component with an output of each kind"""

    str_output: pulumi.Output[str]
    """The string input, upper-cased"""
    optional_int_output: Optional[pulumi.Output[int]]
    complex_output: Optional[pulumi.Output[ComplexOutput]]
    list_output: pulumi.Output[list[str]]
    dict_output: pulumi.Output[dict[str, int]]
    asset_output: pulumi.Output[pulumi.Asset]
    archive_output: pulumi.Output[pulumi.Archive]
    enum_output: pulumi.Output[Emu]

    def __init__(self, name: str, args: Args, opts: pulumi.ResourceOptions):
        super().__init__("component:index:MyComponent", name, {}, opts)
        given = pulumi.Output.from_input
        self.str_output = given(args.get("str_input")).apply(lambda s: s.upper())
        self.optional_int_output = given(args.get("optional_int_input", None)).apply(
            lambda i: i * 2 if i else 7
        )
        self.complex_output = given(
            {
                "str_value": "complex_str_output_value",
                "nested_value": given({"value": "nested_str_plain_value"}),
            }
        )
        self.list_output = given(args.get("list_input")).apply(
            lambda items: [i.upper() for i in items]
        )
        self.dict_output = given(args.get("dict_input")).apply(
            lambda d: {k: v * 2 for k, v in d.items()}
        )
        self.asset_output = given(args.get("asset_input")).apply(shouted)
        self.archive_output = given(args.get("archive_input")).apply(
            lambda a: pulumi.AssetArchive({"asset1": shouted(a.assets["asset1"])})
        )
        self.enum_output = given(args.get("enum_input")).apply(
            lambda e: Emu.B if e == Emu.A else Emu.A
        )
        self.register_outputs({"asset_output": self.asset_output})
