"""A remote component whose provider creates a slow child: the update waits for it."""

import pulumi


class Component(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("testcomponent:index:Component", name, {}, opts, True)


Component("a")
