from pulumi import ComponentResource, ResourceOptions


class Part(ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("my:module:Part", name, None, opts)


# Not a CustomTimeouts nor a dict: the program must fail.
Part("nonsense", ResourceOptions(custom_timeouts="soon"))
