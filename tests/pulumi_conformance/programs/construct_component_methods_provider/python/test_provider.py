"""An explicit provider of another package than the component's (a `sim` provider stands in
for the Go testprovider)."""

import pulumi


class TestProvider(pulumi.ProviderResource):
    def __init__(self, name: str):
        super().__init__("sim", name)
