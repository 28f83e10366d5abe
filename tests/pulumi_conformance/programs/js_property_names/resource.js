"use strict";
// A dynamic resource whose `state` bag is its output; its diff says nothing, so the engine
// diffs the inputs itself, property names and all.
const pulumi = require("@pulumi/pulumi");

let next = 0;
const provider = {
    async create(inputs) {
        return { id: `${next++}`, outs: inputs };
    },
    async diff() {
        return {};
    },
    async update(id, olds, news) {
        return { outs: news };
    },
    async delete() {},
};

class Resource extends pulumi.dynamic.Resource {
    constructor(name, props, opts) {
        super(provider, name, props, opts);
    }
}
exports.Resource = Resource;
