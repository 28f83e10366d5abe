import base64
import json
import random
import string
import sys

from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import (
    CallResponse, CheckResponse, CreateResponse, DiffResponse, GetSchemaResponse,
    InvokeResponse, ParameterizeResponse, ParametersArgs, ParametersValue, Provider,
    ReadResponse)
from pulumi.provider.experimental.server import main

BASE = "testprovider"
VERSION = "0.0.1"
ECHO = {"echo": {"type": "string"}}


def schema(name):
    tok = lambda t: f"{name}:index:{t}"
    random_props = {"length": {"type": "integer"}, "prefix": {"type": "string"}}
    result = {
        "name": name,
        "version": VERSION,
        "description": "A test provider.",
        "provider": {"type": "object", "inputProperties": {"seed": {"type": "integer"}}},
        "resources": {
            tok("Random"): {
                "properties": {**random_props, "result": {"type": "string", "secret": True}},
                "inputProperties": random_props,
            },
            tok("Echo"): {
                "properties": ECHO,
                "inputProperties": ECHO,
                "methods": {"doEchoMethod": tok("Echo/doEchoMethod")},
            },
        },
        "functions": {
            tok("doEcho"): {"inputs": {"properties": ECHO}, "outputs": {"properties": ECHO}},
            tok("Echo/doEchoMethod"): {
                "inputs": {"properties": {"__self__": {"$ref": f"#/types/{tok('Echo')}"}, **ECHO}},
                "outputs": {"properties": ECHO},
            },
        },
    }
    if name != BASE:
        result["parameterization"] = {
            "baseProvider": {"name": BASE, "version": VERSION},
            "parameter": base64.b64encode(name.encode()).decode(),
        }
    return result


class TestProvider(Provider):
    def __init__(self):
        self.name = BASE
        self.echoes = 0

    def kind(self, typ):
        pkg, _, kind = typ.partition(":index:")
        if pkg != self.name:
            raise Exception(f"unknown resource type {typ}")
        return kind

    async def parameterize(self, request):
        p = request.parameters
        if isinstance(p, ParametersArgs):
            if len(p.args) != 1:
                raise ValueError("expected exactly one argument")
            self.name = p.args[0]
        elif isinstance(p, ParametersValue):
            self.name = p.value.decode()
        return ParameterizeResponse(name=self.name, version=VERSION)

    async def get_schema(self, request):
        return GetSchemaResponse(schema=json.dumps(schema(self.name)))

    async def check(self, request):
        inputs = dict(request.new_inputs)
        if self.kind(request.type) == "Random":
            if "length" not in inputs:
                raise ValueError("Missing required property 'length'")
            inputs.setdefault("prefix", PropertyValue(""))
        return CheckResponse(inputs=inputs)

    async def diff(self, request):
        keys = ("length", "prefix", "echo")
        replaces = [k for k in keys if request.old_state.get(k) != request.new_inputs.get(k)]
        return DiffResponse(changes=bool(replaces), replaces=replaces)

    async def create(self, request):
        props = request.properties
        if self.kind(request.type) == "Random":
            letters = "".join(random.choice(string.ascii_letters) for _ in range(int(props["length"].value)))
            result = props["prefix"].value + letters
            return CreateResponse(resource_id=result, properties={**props, "result": PropertyValue(result)})
        self.echoes += 1
        return CreateResponse(resource_id=str(self.echoes), properties=dict(props))

    async def read(self, request):
        return ReadResponse(resource_id=request.resource_id, properties=request.properties,
                            inputs=request.inputs)

    async def delete(self, request):
        return None

    async def invoke(self, request):
        if request.tok == f"{self.name}:index:doEcho":
            return InvokeResponse(return_value={"echo": request.args["echo"]})
        raise Exception(f"unknown invoke {request.tok}")

    async def call(self, request):
        if request.tok == f"{self.name}:index:Echo/doEchoMethod":
            return CallResponse(return_value={"echo": request.args["echo"]})
        raise Exception(f"unknown call {request.tok}")


if __name__ == "__main__":
    main(sys.argv[1:], VERSION, TestProvider())
