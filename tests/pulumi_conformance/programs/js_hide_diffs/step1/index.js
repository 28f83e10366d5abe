// A sim resource whose tags and size changes the display hides (the `hideDiffs` option).
"use strict";
const pulumi = require("@pulumi/pulumi");

new pulumi.CustomResource(
    "sim:index:Resource",
    "quiet",
    { tags: { owner: "two", team: "two" }, size: 2, name: "two" },
    { hideDiffs: ["tags", "size"] },
);
