"""Exports one value; runs only in the virtualenv the preview makes."""

import pulumi

pulumi.export("foo", "bar")
