"use strict";
// A stack transform that changes nothing, and one resource with a secret input.
const pulumi = require("@pulumi/pulumi");
const { Random } = require("./random");

pulumi.runtime.registerStackTransform(async () => {
    console.log("stack transform");
    return undefined;
});

new Random("res1", { length: pulumi.secret(5) });
