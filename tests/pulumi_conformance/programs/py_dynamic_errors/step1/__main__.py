"""The fixed provider: the widget is created."""
import pulumi
from pulumi.dynamic import CreateResult, Resource, ResourceProvider


class Working(ResourceProvider):
    def create(self, props):
        return CreateResult("widget-1", {"made": True})


class Widget(Resource):
    made: pulumi.Output[bool]

    def __init__(self, name):
        super().__init__(Working(), name, {"made": None})


pulumi.export("made", Widget("widget").made)
