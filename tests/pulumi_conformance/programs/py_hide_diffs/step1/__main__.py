"""A sim resource whose tags and size changes the display hides (the `hide_diffs` option)."""
import pulumi

pulumi.CustomResource(
    "sim:index:Resource",
    "quiet",
    {"tags": {"owner": "two", "team": "two"}, "size": 2, "name": "two"},
    opts=pulumi.ResourceOptions(hide_diffs=["tags", "size"]),
)
