// A sim resource whose tags and size changes the display hides (the `hideDiffs` option).
"use strict";
const pulumi = require("@pulumi/pulumi");

new pulumi.CustomResource(
    "sim:index:Resource",
    "quiet",
    { tags: { owner: "one", team: "one" }, size: 1, name: "one" },
    { hideDiffs: ["tags", "size"] },
);
