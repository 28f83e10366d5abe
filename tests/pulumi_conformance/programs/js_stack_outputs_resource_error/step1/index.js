"use strict";
const pulumi = require("@pulumi/pulumi");

const failing = {
    async create() {
        throw new Error("this resource cannot be made");
    },
};
const r = new pulumi.dynamic.Resource(failing, "doomed", {});
exports.xyz = "DEF";
exports.foo = r.id.apply(() => 1);
