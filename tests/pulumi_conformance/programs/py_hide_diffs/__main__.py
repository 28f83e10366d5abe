"""A sim resource whose tags and size changes the display hides (the `hide_diffs` option)."""
import pulumi

pulumi.CustomResource(
    "sim:index:Resource",
    "quiet",
    {"tags": {"owner": "one", "team": "one"}, "size": 1, "name": "one"},
    opts=pulumi.ResourceOptions(hide_diffs=["tags", "size"]),
)
