// The program exits with 123 while a resource is still to be registered: the update fails with
// that exit code, and no message about leaked promises is shown.
"use strict";
const pulumi = require("@pulumi/pulumi");

new Promise((resolve) => setTimeout(resolve, 1000)).then(() => {
    new pulumi.CustomResource("sim:index:Resource", "late", { name: "late" });
});

process.exit(123);
