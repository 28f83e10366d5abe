"use strict";
// A sim resource standing in for Pulumi's testprovider Random.
const pulumi = require("@pulumi/pulumi");

class Random extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super("sim:index:Resource", name, args, opts);
    }
}
exports.Random = Random;
