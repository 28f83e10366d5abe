"""testprovider resources naming where their plugin is downloaded from: one on its default
provider, one on an explicit provider that names its own URL."""

from typing import Optional

from pulumi import Resource, ResourceOptions, export
from pulumi.resource import ProviderResource


class Random(Resource):
    """A testprovider Random, registered by hand (no generated SDK)."""

    def __init__(self, name: str, length: int, opts: Optional[ResourceOptions] = None):
        props = {"length": length, "result": None}
        self.length = length
        super().__init__("testprovider:index:Random", name, True, props, opts)
        print(props)


class RandomProvider(ProviderResource):
    """An explicit testprovider provider called `provider`."""

    def __init__(self, opts: Optional[ResourceOptions] = None):
        super().__init__("testprovider", "provider", None, opts)


default = Random("default", length=10, opts=ResourceOptions(plugin_download_url="get.example.test"))
export("default provider", default.result)

provider = RandomProvider(ResourceOptions(plugin_download_url="get.pulumi.test/providers"))
provided = Random("provided", length=8, opts=ResourceOptions(provider=provider))
export("explicit provider", provided.result)
