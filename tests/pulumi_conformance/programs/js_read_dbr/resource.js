"use strict";
// A dynamic resource that can only be replaced, delete-before-replace, when its `state`
// changes; a read returns the properties it is given.
const pulumi = require("@pulumi/pulumi");

let next = 0;
const provider = {
    async check(olds, news) {
        return { inputs: news };
    },
    async diff(id, olds, news) {
        if (olds.state !== news.state) {
            return { changes: true, replaces: ["state"], deleteBeforeReplace: true };
        }
        return { changes: false };
    },
    async create(inputs) {
        return { id: `made-${next++}`, outs: inputs };
    },
    async update() {
        throw new Error("replace only: no update");
    },
    async read(id, props) {
        return { id, props };
    },
};

class Resource extends pulumi.dynamic.Resource {
    constructor(name, props, opts) {
        super(provider, name, { state: undefined, ...props }, opts);
    }
}
exports.Resource = Resource;
