// Exports `first`, `second` and `third` from config `gen`; with config `fail` set it fails
// before exporting anything.
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config();
const gen = config.get("gen") || "1";
if (config.getBoolean("fail")) {
    // Without a stack the SDK reports the message as is (inspecting a stack costs tens of
    // seconds on a small machine).
    const error = new pulumi.RunError("failing before any output");
    error.stack = undefined;
    throw error;
}
exports.first = `first@${gen}`;
exports.second = `second@${gen}`;
exports.third = `third@${gen}`;
