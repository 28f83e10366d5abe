"use strict";
// A resource whose delete always fails, deleted with another: destroying the stack deletes
// only the other (sim resources standing in for Pulumi's testprovider Random and
// FailsOnDelete).
const pulumi = require("@pulumi/pulumi");

class Random extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super("sim:index:Resource", name, { length: args.length }, opts);
    }
}

class FailsOnDelete extends pulumi.CustomResource {
    constructor(name, opts) {
        super("sim:index:Resource", name, { failOn: ["delete"] }, opts);
    }
}

const rand = new Random("random", { length: 10 });
new FailsOnDelete("failsondelete", { deletedWith: rand });
