"use strict";
// A dynamic resource whose `state` updates in place and whose `replace` and `replaceDBR`
// replace it (the second delete-before-replace); `resource` only makes a dependency.
const pulumi = require("@pulumi/pulumi");

let next = 0;
const provider = {
    async diff(id, olds, news) {
        const replaces = [];
        let deleteBeforeReplace = false;
        if (olds.replace !== news.replace) {
            replaces.push("replace");
        }
        if (olds.replaceDBR !== news.replaceDBR) {
            replaces.push("replaceDBR");
            deleteBeforeReplace = true;
        }
        return { replaces, deleteBeforeReplace };
    },
    async create() {
        return { id: `r${next++}`, outs: undefined };
    },
    async update() {
        return {};
    },
    async delete() {},
};

class Resource extends pulumi.dynamic.Resource {
    constructor(name, props, opts) {
        super(provider, name, props, opts);
    }
}
exports.Resource = Resource;
