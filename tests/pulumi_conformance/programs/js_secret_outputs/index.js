"use strict";
const pulumi = require("@pulumi/pulumi");

const echoing = {
    async create(inputs) {
        return { id: "only", outs: { motto: inputs.motto } };
    },
};

class Sign extends pulumi.dynamic.Resource {
    constructor(name, motto, opts) {
        super(echoing, name, { motto }, opts);
    }
}

const words = "nothing to hide here";
exports.plain = new Sign("plain", pulumi.output(words));
exports.wrapped = new Sign("wrapped", pulumi.secret(words));
exports.listed = new Sign("listed", pulumi.output(words), { additionalSecretOutputs: ["motto"] });
