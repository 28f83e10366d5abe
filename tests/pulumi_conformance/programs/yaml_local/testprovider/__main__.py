"""The `testprovider` plugin, standing in for Pulumi's test provider: `Random` makes a string
of `length` letters once, `Echo` answers its `echo` input back. Written with the Python SDK's
experimental provider interface; the inherited Read, Check and Diff keep what exists."""

import json
import secrets
import string
import sys

from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import (
    CreateRequest,
    CreateResponse,
    DeleteRequest,
    GetSchemaRequest,
    GetSchemaResponse,
    Provider,
)
from pulumi.provider.experimental.server import main

SCHEMA = {
    "name": "testprovider",
    "version": "0.0.1",
    "resources": {
        "testprovider:index:Random": {
            "properties": {"length": {"type": "integer"}, "result": {"type": "string"}},
            "inputProperties": {"length": {"type": "integer"}},
            "requiredInputs": ["length"],
        },
        "testprovider:index:Echo": {
            "properties": {"echo": {"$ref": "pulumi.json#/Any"}},
            "inputProperties": {"echo": {"$ref": "pulumi.json#/Any"}},
        },
    },
}


class TestProvider(Provider):
    async def get_schema(self, request: GetSchemaRequest) -> GetSchemaResponse:
        return GetSchemaResponse(json.dumps(SCHEMA))

    async def create(self, request: CreateRequest) -> CreateResponse:
        properties = dict(request.properties)
        if request.type == "testprovider:index:Random" and not request.preview:
            length = int(properties["length"].value)
            letters = "".join(secrets.choice(string.ascii_letters) for _ in range(length))
            properties["result"] = PropertyValue(letters)
        return CreateResponse(resource_id=f"{request.name}-id", properties=properties)

    async def delete(self, request: DeleteRequest) -> None:
        pass


if __name__ == "__main__":
    main(sys.argv[1:], "0.0.1", TestProvider())
