"use strict";
// A dynamic resource is created with no outputs, then read back by its id, which in a
// preview is not known yet.
const pulumi = require("@pulumi/pulumi");

const provider = {
    async create() {
        return { id: "0", outs: undefined };
    },
};

class Resource extends pulumi.dynamic.Resource {
    constructor(name, opts) {
        super(provider, name, {}, opts);
    }
}

const a = new Resource("a");
new Resource("b", { id: a.id });
