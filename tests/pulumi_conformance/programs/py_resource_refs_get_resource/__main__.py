"""A component holding a reference to another component, read back by URN: the rehydrated
container's `child` is a resource reference that the registered resource module turns into a
`Child` again, with its URN and message."""

import time
from typing import Optional

import pulumi
from pulumi.runtime.sync_await import _sync_await


@pulumi.input_type
class Props:
    """Untyped component props: whatever attributes the constructor sets."""


class Child(pulumi.ComponentResource):
    def __init__(self, name: str, message: Optional[str] = None, opts: Optional[pulumi.ResourceOptions] = None):
        props = Props.__new__(Props)
        props.__dict__["message"] = message
        super().__init__("test:index:Child", name, props, opts)
        if opts is None or not opts.urn:
            self.register_outputs({"message": message})

    @property
    @pulumi.getter
    def message(self) -> pulumi.Output[str]:
        return pulumi.get(self, "message")


class Container(pulumi.ComponentResource):
    def __init__(self, name: str, child: Optional[Child] = None, opts: Optional[pulumi.ResourceOptions] = None):
        props = Props.__new__(Props)
        props.__dict__["child"] = child
        super().__init__("test:index:Container", name, props, opts)
        if opts is None or not opts.urn:
            self.register_outputs({"child": child})

    @property
    @pulumi.getter
    def child(self) -> pulumi.Output[Child]:
        return pulumi.get(self, "child")


class TestModule(pulumi.runtime.ResourceModule):
    def version(self):
        return "0.0.1"

    def construct(self, name: str, typ: str, urn: str) -> pulumi.Resource:
        if typ != "test:index:Child":
            raise Exception(f"no such resource type {typ}")
        return Child(name, opts=pulumi.ResourceOptions(urn=urn))


pulumi.runtime.register_resource_module("test", "index", TestModule())

child = Child("mychild", message="hello world!")
container = Container("mycontainer", child=child)


def same_child(values):
    assert values["want_urn"] == values["got_urn"], f"child URN {values['got_urn']!r}, not {values['want_urn']!r}"
    assert values["got_message"] == "hello world!", f"child message {values['got_message']!r}"


def read_back(urn: str):
    again = Container("mycontainer", opts=pulumi.ResourceOptions(urn=urn))
    pulumi.Output.all(
        want_urn=child.urn, got_urn=again.child.urn, got_message=again.child.message
    ).apply(same_child)


def outputs_registered(c: Container) -> None:
    """RegisterResourceOutputs completes asynchronously (Pulumi issue 16896): read the container
    back until its child shows, for at most half a second."""
    deadline = time.monotonic() + 0.5
    while True:
        urn = _sync_await(c.urn._future)
        if _sync_await(Container("mycontainer", opts=pulumi.ResourceOptions(urn=urn)).child._future):
            return
        if time.monotonic() > deadline:
            raise Exception("the container's outputs never became readable")


outputs_registered(container)
container.urn.apply(read_back)
