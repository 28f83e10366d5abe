"""The Python component provider of `testcomponent:index:Component`: its constructor fails
unless `foo` and `bar` (and `bar.tags`) arrive as plain values, `bar.tags.a` as "world" and
the secret `bar.tags.b` as an output of "shh"."""

import sys

import pulumi
import pulumi.provider as provider


def plain(what, value):
    assert value is not None, f"expected {what} to be present"
    assert not isinstance(value, pulumi.Output), f"expected {what} not to be an output"
    return value


class Component(pulumi.ComponentResource):
    def __init__(self, name, args, opts=None):
        super().__init__("testcomponent:index:Component", name, {}, opts)
        foo = plain("args.foo", args.get("foo"))
        assert foo["something"] == "hello", f"expected foo.something to be hello: {foo}"
        tags = plain("args.bar.tags", plain("args.bar", args.get("bar")).get("tags"))
        assert tags["a"] == "world", f"expected bar.tags.a to be world: {tags}"
        assert isinstance(tags["b"], pulumi.Output), "expected bar.tags.b to be an output"

        def secret_is_shh(b):
            assert b == "shh", f"expected bar.tags.b to be shh, got {b}"

        tags["b"].apply(secret_is_shh)


class Provider(provider.Provider):
    def __init__(self):
        super().__init__("0.0.1")

    def construct(self, name, resource_type, inputs, options=None):
        if resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {resource_type}")
        component = Component(name, inputs, options)
        return provider.ConstructResult(urn=component.urn, state={})


if __name__ == "__main__":
    provider.main(Provider(), sys.argv[1:])
