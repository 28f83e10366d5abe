"""`MyComponent`: reports which resource monitor features the SDK found when it constructed the
component (the monitor the engine gave the provider)."""

from typing import TypedDict

import pulumi
from pulumi.runtime.proto import resource_pb2


class Args(TypedDict):
    pass


def _supported(feature: int) -> bool:
    return feature in pulumi.runtime.settings.SETTINGS.monitor_features


class MyComponent(pulumi.ComponentResource):
    parameterization: bool
    transforms: bool
    resourceHooks: bool

    def __init__(self, name: str, args: Args, opts: pulumi.ResourceOptions):
        super().__init__("provider:index:MyComponent", name, {}, opts)
        self.parameterization = _supported(
            resource_pb2.RESOURCE_MONITOR_FEATURE_PARAMETERIZATION
        )
        self.transforms = _supported(resource_pb2.RESOURCE_MONITOR_FEATURE_TRANSFORMS)
        self.resourceHooks = _supported(
            resource_pb2.RESOURCE_MONITOR_FEATURE_RESOURCE_HOOKS
        )
