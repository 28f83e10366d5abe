"""The method's provider answers with a failure, which fails the program."""

from component import Component

component = Component("component")
result = component.get_message("hello")
