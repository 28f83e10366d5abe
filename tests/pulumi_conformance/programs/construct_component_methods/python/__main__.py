"""A remote component's method answers from the component's own outputs and its argument."""

import pulumi

from component import Component

component = Component("component", first="Hello", second="World")
result = component.get_message("Alice")

pulumi.export("message", result.message)
