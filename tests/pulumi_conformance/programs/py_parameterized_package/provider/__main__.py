"""The `widgets` provider plugin, written with the Python SDK's experimental provider
interface: Parameterize makes it serve the package it is given, whose value is the shade of
every resource it creates and the answer of its function `gadgets:index:getShade`. Each
Parameterize, Create, Delete and Invoke appends a line to the file
`$WIDGETS_LOG`, which the test reads."""

import os
import sys

from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import (
    CreateRequest,
    CreateResponse,
    DeleteRequest,
    InvokeRequest,
    InvokeResponse,
    ParameterizeRequest,
    ParameterizeResponse,
    ParametersValue,
    Provider,
)
from pulumi.provider.experimental.server import main


def record(line):
    with open(os.environ["WIDGETS_LOG"], "a", encoding="utf-8") as f:
        f.write(line + "\n")


class Widgets(Provider):
    def __init__(self):
        self.shade = None

    async def parameterize(self, request: ParameterizeRequest) -> ParameterizeResponse:
        params = request.parameters
        if not isinstance(params, ParametersValue):
            raise Exception("widgets is parameterized by value only")
        self.shade = params.value.decode()
        record(f"parameterize {params.name} {params.version} {self.shade}")
        return ParameterizeResponse(params.name, params.version)

    async def create(self, request: CreateRequest) -> CreateResponse:
        record(f"create {request.type} {request.name} preview={request.preview}")
        if self.shade is None:
            raise Exception("create before parameterize")
        properties = dict(request.properties)
        properties["shade"] = PropertyValue(self.shade)
        return CreateResponse(resource_id=f"{request.name}-id", properties=properties)

    async def invoke(self, request: InvokeRequest) -> InvokeResponse:
        record(f"invoke {request.tok}")
        return InvokeResponse(return_value={"shade": PropertyValue(self.shade)})

    async def delete(self, request: DeleteRequest) -> None:
        record(f"delete {request.type} {request.name}")


if __name__ == "__main__":
    main(sys.argv[1:], "1.0.0", Widgets())
