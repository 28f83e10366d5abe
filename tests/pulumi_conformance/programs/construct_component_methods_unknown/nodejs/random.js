// A resource whose id is unknown until it is created (a sim resource stands in for the Go
// testprovider's `Random`).
"use strict";
const pulumi = require("@pulumi/pulumi");

class Random extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super("sim:index:Resource", name, args, opts);
    }
}

exports.Random = Random;
