"use strict";
const pulumi = require("@pulumi/pulumi");

let next = 0;
const provider = {
    async create() {
        return { id: String(next++), outs: undefined };
    },
};

// `this` at a module's top level is its exports object, not a resource: the SDK must refuse it
// as a parent.
new pulumi.dynamic.Resource(provider, "orphan", {}, { parent: this });
