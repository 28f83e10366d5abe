"""One debug message and one component."""

import pulumi


class Widget(pulumi.ComponentResource):
    def __init__(self, name):
        super().__init__("test:index:Widget", name, {}, None)


pulumi.log.debug("debugging the widget")
Widget("widget")
