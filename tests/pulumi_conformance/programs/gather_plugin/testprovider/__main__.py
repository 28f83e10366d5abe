"""The `testprovider` plugin of the gather_plugin programs, standing in for Pulumi's Go test
provider: `Random` makes a string of `length` letters when it is created. Written with the
Python SDK's experimental provider interface (its defaults keep Check, Diff and Read)."""

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
    },
}


class RandomProvider(Provider):
    async def get_schema(self, request: GetSchemaRequest) -> GetSchemaResponse:
        return GetSchemaResponse(json.dumps(SCHEMA))

    async def create(self, request: CreateRequest) -> CreateResponse:
        outputs = dict(request.properties)
        if not request.preview:
            length = int(outputs["length"].value)
            outputs["result"] = PropertyValue("".join(secrets.choice(string.ascii_letters) for _ in range(length)))
        return CreateResponse(resource_id=f"{request.name}-id", properties=outputs)

    async def delete(self, request: DeleteRequest) -> None:
        pass


if __name__ == "__main__":
    main(sys.argv[1:], "0.0.1", RandomProvider())
