"""A Python stand-in for Pulumi's Go `testcomponent` of `construct_component_provider_explicit`,
on the Python SDK's experimental provider interface: Configure keeps the provider's `message`,
and each component it constructs answers with that message."""

import sys

import pulumi
from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import (
    ConfigureRequest,
    ConfigureResponse,
    ConstructRequest,
    ConstructResponse,
    Provider,
)
from pulumi.provider.experimental.server import main


class Component(pulumi.ComponentResource):
    def __init__(self, name, message, opts=None):
        super().__init__("testcomponent:index:Component", name, {}, opts)
        self.register_outputs({"message": message})


class TestComponent(Provider):
    def __init__(self):
        self.message = None

    async def configure(self, request: ConfigureRequest) -> ConfigureResponse:
        message = request.args.get("message")
        self.message = message.value if message is not None else None
        return ConfigureResponse(
            accept_secrets=True, supports_preview=True, accept_resources=True, accept_outputs=True
        )

    async def construct(self, request: ConstructRequest) -> ConstructResponse:
        if request.resource_type != "testcomponent:index:Component":
            raise Exception(f"unknown resource type {request.resource_type}")
        component = Component(request.name, self.message, request.options)
        return ConstructResponse(
            urn=await component.urn.future(),
            state={"message": PropertyValue(self.message)},
            state_dependencies={},
        )


if __name__ == "__main__":
    main(sys.argv[1:], "0.0.1", TestComponent())
