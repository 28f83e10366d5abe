"""Property-name translation between the program's snake_case and the engine's camelCase:
resources using the old hooks (`translate_*_property` with a casing table) and resources passing
an `@input_type` args class (whose getter names drive the translation, the hooks never called),
run under mocks that check the inputs the engine would get."""

from typing import Mapping, Optional, Sequence

import pulumi

TO_SNAKE = {
    "anotherValue": "another_value",
    "listOfNestedValues": "list_of_nested_values",
    "nestedValue": "nested_value",
    "serviceName": "service_name",
    "somethingElse": "something_else",
    "someValue": "some_value",
}
TO_CAMEL = {snake: camel for camel, snake in TO_SNAKE.items()}


@pulumi.input_type
class NestedArgs:
    def __init__(self, foo_bar: pulumi.Input[str], some_value: pulumi.Input[int]):
        pulumi.set(self, "foo_bar", foo_bar)
        pulumi.set(self, "some_value", some_value)

    @property
    @pulumi.getter(name="fooBar")
    def foo_bar(self) -> pulumi.Input[str]:
        return pulumi.get(self, "foo_bar")

    @property
    @pulumi.getter(name="someValue")
    def some_value(self) -> pulumi.Input[int]:
        return pulumi.get(self, "some_value")


class NestedGetters:
    @property
    @pulumi.getter(name="fooBar")
    def foo_bar(self) -> str:
        return pulumi.get(self, "foo_bar")

    @property
    @pulumi.getter(name="someValue")
    def some_value(self) -> int:
        return pulumi.get(self, "some_value")


@pulumi.output_type
class NestedOldOutput(NestedGetters, dict):
    """The old shape: a `_translate_property` hook with the casing table."""

    def __init__(self, foo_bar: str, some_value: int):
        pulumi.set(self, "foo_bar", foo_bar)
        pulumi.set(self, "some_value", some_value)

    def _translate_property(self, prop):
        return TO_SNAKE.get(prop) or prop


@pulumi.output_type
class NestedNewOutput(NestedGetters, dict):
    """The new shape: no hook, keys follow the getters' Python names."""

    def __init__(self, foo_bar: str, some_value: int):
        pulumi.set(self, "foo_bar", foo_bar)
        pulumi.set(self, "some_value", some_value)


FIELDS = ["service_name", "some_value", "another_value", "nested_value",
          "list_of_nested_values", "tags", "items", "keys", "values", "get"]


class Outputs:
    """The output getters every test resource has but the nested ones."""

    @property
    @pulumi.getter(name="serviceName")
    def service_name(self) -> pulumi.Output[str]:
        return pulumi.get(self, "service_name")

    @property
    @pulumi.getter(name="someValue")
    def some_value(self) -> pulumi.Output[Optional[str]]:
        return pulumi.get(self, "some_value")

    @property
    @pulumi.getter(name="anotherValue")
    def another_value(self) -> pulumi.Output[Optional[str]]:
        return pulumi.get(self, "another_value")

    @property
    @pulumi.getter
    def tags(self) -> pulumi.Output[Optional[Mapping[str, str]]]:
        return pulumi.get(self, "tags")

    @property
    @pulumi.getter
    def items(self) -> pulumi.Output[Optional[Mapping[str, str]]]:
        return pulumi.get(self, "items")

    @property
    @pulumi.getter
    def keys(self) -> pulumi.Output[Optional[Sequence[str]]]:
        return pulumi.get(self, "keys")

    @property
    @pulumi.getter
    def values(self) -> pulumi.Output[Optional[Sequence[str]]]:
        return pulumi.get(self, "values")

    @property
    @pulumi.getter
    def get(self) -> pulumi.Output[Optional[str]]:
        return pulumi.get(self, "get")

    @property
    @pulumi.getter(name="somethingElse")
    def something_else(self) -> pulumi.Output[str]:
        return pulumi.get(self, "something_else")


class OldBehavior(Outputs, pulumi.CustomResource):
    def __init__(self, resource_name: str, opts: Optional[pulumi.ResourceOptions] = None, **kwargs):
        props = {field: kwargs.get(field) for field in FIELDS}
        props["something_else"] = None
        super().__init__("test::OldBehavior", resource_name, props, opts or pulumi.ResourceOptions())

    @property
    @pulumi.getter(name="nestedValue")
    def nested_value(self) -> pulumi.Output[Optional[NestedOldOutput]]:
        return pulumi.get(self, "nested_value")

    @property
    @pulumi.getter(name="listOfNestedValues")
    def list_of_nested_values(self) -> pulumi.Output[Optional[Sequence[NestedOldOutput]]]:
        return pulumi.get(self, "list_of_nested_values")

    def translate_output_property(self, prop):
        return TO_SNAKE.get(prop) or prop

    def translate_input_property(self, prop):
        return TO_CAMEL.get(prop) or prop


class ArgsGetters:
    """The getters of an `@input_type` args class for the test resources."""

    @property
    @pulumi.getter(name="serviceName")
    def service_name(self) -> pulumi.Input[str]:
        return pulumi.get(self, "service_name")

    @property
    @pulumi.getter(name="someValue")
    def some_value(self) -> Optional[pulumi.Input[str]]:
        return pulumi.get(self, "some_value")

    @property
    @pulumi.getter(name="anotherValue")
    def another_value(self) -> Optional[pulumi.Input[str]]:
        return pulumi.get(self, "another_value")

    @property
    @pulumi.getter(name="nestedValue")
    def nested_value(self) -> Optional[pulumi.Input[pulumi.InputType[NestedArgs]]]:
        return pulumi.get(self, "nested_value")

    @property
    @pulumi.getter(name="listOfNestedValues")
    def list_of_nested_values(
        self,
    ) -> Optional[pulumi.Input[Sequence[pulumi.Input[pulumi.InputType[NestedArgs]]]]]:
        return pulumi.get(self, "list_of_nested_values")

    @property
    @pulumi.getter
    def tags(self) -> Optional[pulumi.Input[Mapping[str, pulumi.Input[str]]]]:
        return pulumi.get(self, "tags")

    @property
    @pulumi.getter
    def items(self) -> Optional[pulumi.Input[Mapping[str, pulumi.Input[str]]]]:
        return pulumi.get(self, "items")

    @property
    @pulumi.getter
    def keys(self) -> Optional[pulumi.Input[Sequence[pulumi.Input[str]]]]:
        return pulumi.get(self, "keys")

    @property
    @pulumi.getter
    def values(self) -> Optional[pulumi.Input[Sequence[pulumi.Input[str]]]]:
        return pulumi.get(self, "values")

    @property
    @pulumi.getter
    def get(self) -> Optional[pulumi.Input[str]]:
        return pulumi.get(self, "get")


@pulumi.input_type
class NewBehaviorArgs(ArgsGetters):
    def __init__(self, service_name: pulumi.Input[str], **kwargs):
        pulumi.set(self, "service_name", service_name)
        for field in FIELDS[1:]:
            pulumi.set(self, field, kwargs.get(field))


@pulumi.input_type
class NewBehaviorDictArgs(ArgsGetters, dict):
    """The args class as a dict subclass: `items`, `keys`, `values` and `get` shadow dict's."""

    def __init__(self, service_name: pulumi.Input[str], **kwargs):
        pulumi.set(self, "service_name", service_name)
        for field in FIELDS[1:]:
            pulumi.set(self, field, kwargs.get(field))


class NewOutputs(Outputs):
    @property
    @pulumi.getter(name="nestedValue")
    def nested_value(self) -> pulumi.Output[Optional[NestedNewOutput]]:
        return pulumi.get(self, "nested_value")

    @property
    @pulumi.getter(name="listOfNestedValues")
    def list_of_nested_values(self) -> pulumi.Output[Optional[Sequence[NestedNewOutput]]]:
        return pulumi.get(self, "list_of_nested_values")

    def translate_output_property(self, prop):
        raise Exception("translate_output_property must not be called")

    def translate_input_property(self, prop):
        raise Exception("translate_input_property must not be called")


class NewBehavior(NewOutputs, pulumi.CustomResource):
    def __init__(self, resource_name: str, service_name, opts=None, **kwargs):
        props = NewBehaviorArgs.__new__(NewBehaviorArgs)
        props.__dict__["service_name"] = service_name
        for field in FIELDS[1:]:
            props.__dict__[field] = kwargs.get(field)
        props.__dict__["something_else"] = None
        super().__init__("test::NewBehavior", resource_name, props, opts or pulumi.ResourceOptions())


class NewBehaviorDict(NewOutputs, pulumi.CustomResource):
    def __init__(self, resource_name: str, args: NewBehaviorDictArgs, opts=None):
        args["something_else"] = None
        super().__init__("test::NewBehaviorDict", resource_name, args, opts or pulumi.ResourceOptions())


EXPECTED_INPUTS = {
    "o1": {"serviceName": "hello"},
    "o2": {"serviceName": "hi", "nestedValue": {"fooBar": "foo bar", "someValue": 42}},
    "o3": {"serviceName": "bye", "nestedValue": {"fooBar": "bar foo", "someValue": 24}},
    # `service_name` inside the user's tags is in the casing table, so the old hooks rename it.
    "o4": {"serviceName": "sn", "tags": {"serviceName": "my-service"}},
    "o5": {"serviceName": "o5sn", "listOfNestedValues": [{"fooBar": "f", "someValue": 1}]},
    "o6": {"serviceName": "o6sn", "listOfNestedValues": [{"fooBar": "b", "someValue": 2}]},
    "n1": {"serviceName": "hi new", "nestedValue": {"fooBar": "noo nar", "someValue": 100}},
    "n2": {"serviceName": "hello new", "nestedValue": {"fooBar": "2", "someValue": 3}},
    # The typed path leaves a user-defined dict's keys alone.
    "n3": {"serviceName": "sn", "tags": {"service_name": "a-service"}},
    "n4": {"serviceName": "a", "items": {"foo": "bar"}, "keys": ["foo"], "values": ["bar"], "get": "bar"},
    "d1": {"serviceName": "b", "items": {"hello": "world"}, "keys": ["hello"], "values": ["world"], "get": "world"},
}


class Mocks(pulumi.runtime.Mocks):
    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        want = EXPECTED_INPUTS.get(args.name)
        assert want is None or args.inputs == want, f"{args.name}: {args.inputs!r} != {want!r}"
        return [args.name + "_id", {**args.inputs, "somethingElse": "hehe"}]


pulumi.runtime.set_mocks(Mocks())


def check_nested(foo_bar, some_value, foo_key):
    """The nested output reads the same through getters and through its (translated) keys."""

    def check(v):
        assert v.foo_bar == foo_bar and v[foo_key] == foo_bar, v
        assert v.some_value == some_value and v["some_value"] == some_value, v
        return v

    return check


def check_equal(want):
    def check(v):
        assert v == want, v
        return v

    return check


def check_first(check):
    def first(vs):
        check(vs[0])
        return vs

    return first


o1 = OldBehavior("o1", service_name="hello")
o2 = OldBehavior("o2", service_name="hi", nested_value=NestedArgs(foo_bar="foo bar", some_value=42))
pulumi.export("o2", o2.nested_value.apply(check_nested("foo bar", 42, "fooBar")))
# Only `some_value` is in the casing table, so `fooBar` must be given camelCase.
o3 = OldBehavior("o3", service_name="bye", nested_value={"fooBar": "bar foo", "some_value": 24})
pulumi.export("o3", o3.nested_value.apply(check_nested("bar foo", 24, "fooBar")))
o4 = OldBehavior("o4", service_name="sn", tags={"service_name": "my-service"})
pulumi.export("o4", o4.tags.apply(check_equal({"service_name": "my-service"})))
o5 = OldBehavior("o5", service_name="o5sn", list_of_nested_values=[NestedArgs(foo_bar="f", some_value=1)])
pulumi.export("o5", o5.list_of_nested_values.apply(check_first(check_nested("f", 1, "fooBar"))))
o6 = OldBehavior("o6", service_name="o6sn", list_of_nested_values=[{"fooBar": "b", "some_value": 2}])
pulumi.export("o6", o6.list_of_nested_values.apply(check_first(check_nested("b", 2, "fooBar"))))

n1 = NewBehavior("n1", service_name="hi new", nested_value=NestedArgs(foo_bar="noo nar", some_value=100))
pulumi.export("n1", n1.nested_value.apply(check_nested("noo nar", 100, "foo_bar")))
n2 = NewBehavior("n2", service_name="hello new", nested_value={"foo_bar": "2", "some_value": 3})
pulumi.export("n2", n2.nested_value.apply(check_nested("2", 3, "foo_bar")))
n3 = NewBehavior("n3", service_name="sn", tags={"service_name": "a-service"})
pulumi.export("n3", n3.tags.apply(check_equal({"service_name": "a-service"})))
NewBehavior("n4", service_name="a", items={"foo": "bar"}, keys=["foo"], values=["bar"], get="bar")

NewBehaviorDict(
    "d1",
    NewBehaviorDictArgs(service_name="b", items={"hello": "world"}, keys=["hello"], values=["world"], get="world"),
)
