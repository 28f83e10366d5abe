// A resource registered from a `beforeExit` handler, once the program's own work is done, is
// still part of the deployment.
"use strict";
const pulumi = require("@pulumi/pulumi");

let registered = false;
process.on("beforeExit", () => {
    if (!registered) {
        registered = true;
        new pulumi.CustomResource("sim:index:Resource", "beforeExit", { name: "beforeExit" });
    }
});
