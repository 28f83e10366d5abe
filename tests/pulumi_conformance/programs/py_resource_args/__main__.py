"""Every overload of a generated resource constructor, under mocks that check the inputs (and
the provider) each call ends up registering."""

import pulumi
from pulumi_example import Foo, FooArgs, Provider

EXPECTED = {
    "f1": {"first": 1, "second": "second", "third": "third"},
    "f2": {"args": "args", "first": 2, "second": "s", "third": "t"},
    "f3": {},
    "f4": {"args": "hi"},
    "f5": {"first": 100, "second": "200", "third": "300"},
    "a1": {"first": 10, "second": "asecond", "third": "athird"},
    "a2": {"first": 42, "second": "2nd", "third": "3rd"},
    "a3": {"args": "someargs", "first": 50, "second": "2", "third": "3"},
    "a4": {"first": 11, "second": "12", "third": "13"},
}
WITH_PROVIDER = {"f3": "f3provider_id", "f5": "f5provider_id", "a4": "a4provider_id"}


class Mocks(pulumi.runtime.Mocks):
    def call(self, args: pulumi.runtime.MockCallArgs):
        return {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs):
        if args.name in EXPECTED:
            assert args.inputs == EXPECTED[args.name], f"{args.name}: {args.inputs!r}"
        if args.name in WITH_PROVIDER:
            assert args.provider.endswith(WITH_PROVIDER[args.name]), f"{args.name}: {args.provider}"
        return [args.name + "_id", args.inputs]


pulumi.runtime.set_mocks(Mocks())

Foo("f1", first=1, second="second", third="third")
Foo("f2", None, "args", 2, "s", "t")
Foo("f3", pulumi.ResourceOptions(provider=Provider("f3provider")))
Foo("f4", args="hi")
Foo("f5", first=100, second="200", third="300", opts=pulumi.ResourceOptions(provider=Provider("f5provider")))
Foo("a1", FooArgs(first=10, second="asecond", third="athird"))
Foo("a2", args=FooArgs(first=42, second="2nd", third="3rd"))
Foo("a3", args=FooArgs(args="someargs", first=50, second="2", third="3"))
Foo("a4", FooArgs(first=11, second="12", third="13"), pulumi.ResourceOptions(provider=Provider("a4provider")))
