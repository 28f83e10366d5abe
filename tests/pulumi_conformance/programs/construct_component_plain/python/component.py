"""The program's view of `testcomponent:index:Component`: a remote component whose provider
builds its children."""

from typing import Optional

import pulumi


class Component(pulumi.ComponentResource):
    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions] = None, children: Optional[int] = None):
        super().__init__("testcomponent:index:Component", name, {"children": children}, opts, True)
