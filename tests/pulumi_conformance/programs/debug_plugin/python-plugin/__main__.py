"""A provider with one resource type and no methods: every call on it is "not implemented"."""

import sys

import pulumi.provider

SCHEMA = '{"name":"debugplugin","version":"0.0.1","resources":{"debugplugin:index:MyDebugResource":{}}}'


class DebugProvider(pulumi.provider.Provider):
    def __init__(self):
        super().__init__("0.0.1", SCHEMA)


if __name__ == "__main__":
    pulumi.provider.main(DebugProvider(), sys.argv[1:])
