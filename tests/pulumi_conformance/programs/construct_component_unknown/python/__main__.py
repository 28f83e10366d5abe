"""A dynamic resource's id, unknown until it is created, flows into a remote component's
inputs, at the top and nested in an object."""

from component import Component
from my_resource import Resource

resource = Resource("resource")

Component(
    "component",
    {
        "message": resource.id.apply(lambda v: f"message {v}"),
        "nested": {"value": resource.id.apply(lambda v: f"nested.value {v}")},
    },
)
