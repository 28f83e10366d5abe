"""The method makes a resource under the component; its result is the stack's output."""

import pulumi

from component import Component

component = Component("component")

pulumi.export("result", component.create_random(length=10).result)
