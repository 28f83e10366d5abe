from pulumi import ComponentResource, CustomTimeouts, ResourceOptions


class Part(ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("my:module:Part", name, None, opts)


# Custom timeouts as the class and as a plain dict, each operation on its own.
Part("creating", ResourceOptions(custom_timeouts=CustomTimeouts(create="20m")))
Part("as-dict", ResourceOptions(custom_timeouts={"create": "10m", "delete": "10m"}))
Part("updating", ResourceOptions(custom_timeouts=CustomTimeouts(update="20m")))
Part("deleting", ResourceOptions(custom_timeouts=CustomTimeouts(delete="20m")))
