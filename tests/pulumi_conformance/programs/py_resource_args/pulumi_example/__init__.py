"""A hand-written stand-in for the SDK Pulumi's Python codegen makes from the test's schema
(package `example`: resource `Foo` with inputs `first`, `second`, `third` and `args`, and
its provider), keeping the generated constructors' overloads: `Foo(name, FooArgs, opts)` or
`Foo(name, opts, args, first, second, third)`, positionally or by keyword."""

from typing import Optional

import pulumi


@pulumi.input_type
class FooArgs:
    def __init__(
        self,
        args: Optional[pulumi.Input[str]] = None,
        first: Optional[pulumi.Input[int]] = None,
        second: Optional[pulumi.Input[str]] = None,
        third: Optional[pulumi.Input[str]] = None,
    ):
        for key, value in (("args", args), ("first", first), ("second", second), ("third", third)):
            if value is not None:
                pulumi.set(self, key, value)

    @property
    @pulumi.getter
    def args(self) -> Optional[pulumi.Input[str]]:
        return pulumi.get(self, "args")

    @property
    @pulumi.getter
    def first(self) -> Optional[pulumi.Input[int]]:
        return pulumi.get(self, "first")

    @property
    @pulumi.getter
    def second(self) -> Optional[pulumi.Input[str]]:
        return pulumi.get(self, "second")

    @property
    @pulumi.getter
    def third(self) -> Optional[pulumi.Input[str]]:
        return pulumi.get(self, "third")


def _typed_args_and_opts(positional, keywords):
    """Which overload a call uses: a leading `FooArgs` (positional or `args=`) selects the typed
    one, and the options follow it; otherwise everything is the flat overload's."""
    typed = None
    rest = list(positional)
    if rest and isinstance(rest[0], FooArgs):
        typed = rest.pop(0)
    elif isinstance(keywords.get("args"), FooArgs):
        typed = keywords["args"]
    opts = rest[0] if rest and isinstance(rest[0], pulumi.ResourceOptions) else keywords.get("opts")
    return typed, opts


class Foo(pulumi.CustomResource):
    def __init__(self, resource_name: str, *args, **kwargs):
        typed, opts = _typed_args_and_opts(args, kwargs)
        if typed is not None:
            self._init(resource_name, opts, **typed.__dict__)
        else:
            self._init(resource_name, *args, **kwargs)

    def _init(
        self,
        resource_name: str,
        opts: Optional[pulumi.ResourceOptions] = None,
        args: Optional[pulumi.Input[str]] = None,
        first: Optional[pulumi.Input[int]] = None,
        second: Optional[pulumi.Input[str]] = None,
        third: Optional[pulumi.Input[str]] = None,
    ):
        props = FooArgs.__new__(FooArgs)
        props.__dict__.update(args=args, first=first, second=second, third=third)
        super().__init__("example::Foo", resource_name, props, opts)

    @property
    @pulumi.getter
    def args(self) -> pulumi.Output[Optional[str]]:
        return pulumi.get(self, "args")

    @property
    @pulumi.getter
    def first(self) -> pulumi.Output[Optional[int]]:
        return pulumi.get(self, "first")

    @property
    @pulumi.getter
    def second(self) -> pulumi.Output[Optional[str]]:
        return pulumi.get(self, "second")

    @property
    @pulumi.getter
    def third(self) -> pulumi.Output[Optional[str]]:
        return pulumi.get(self, "third")


class Provider(pulumi.ProviderResource):
    def __init__(self, resource_name: str, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("example", resource_name, {}, opts)
