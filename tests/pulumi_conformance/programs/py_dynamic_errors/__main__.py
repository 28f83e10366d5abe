"""A dynamic provider whose create raises: the error reaches the user, nothing is recorded."""
import pulumi
from pulumi.dynamic import Resource, ResourceProvider


class Broken(ResourceProvider):
    def create(self, props):
        raise Exception("the widget factory is closed today")


class Widget(Resource):
    def __init__(self, name):
        super().__init__(Broken(), name, {})


Widget("widget")
