"""A method called with an unknown argument answers unknown in preview: the apply on its
result must not run (the program exits if it does)."""

import sys

import pulumi

from component import Component
from random_ import Random


def must_not_run(what: str):
    print(f"should not run ({what})")
    sys.exit(1)


r = Random("resource", length=10)
component = Component("component")
result = component.get_message(r.id)

pulumi.export("result", result.apply(lambda _: must_not_run("result")))
