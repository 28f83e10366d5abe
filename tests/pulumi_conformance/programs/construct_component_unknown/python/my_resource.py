"""A dynamic resource whose id is only known once it is created."""

from typing import Any, Optional

import pulumi
import pulumi.dynamic as dynamic

_next_id = 0


class Ids(dynamic.ResourceProvider):
    def create(self, props: Any) -> dynamic.CreateResult:
        global _next_id
        _next_id += 1
        return dynamic.CreateResult(id_=str(_next_id))


class Resource(dynamic.Resource):
    def __init__(self, name: str, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(Ids(), name, {}, opts)
