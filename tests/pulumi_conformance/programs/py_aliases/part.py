"""A component of any type, with children made by a callback given the component."""

from pulumi import ComponentResource, ResourceOptions


class Part(ComponentResource):
    def __init__(self, type_, name, opts=None, children=None):
        super().__init__(type_, name, None, opts)
        if children:
            children(self)


def under(parent, **more):
    """Options making `parent` the parent, with any other options."""
    return ResourceOptions(parent=parent, **more)
