// A dynamic provider whose configure() reads the stack's configuration: a plain value of the
// project, a secret, and a value of another namespace.
"use strict";
const pulumi = require("@pulumi/pulumi");

const greeterProvider = {
    async configure(req) {
        this.greeting = req.config.require("greeting");
        this.token = req.config.get("token");
        this.region = req.config.get("aws:region");
    },
    async create(inputs) {
        return {
            id: `greeter-${inputs.name}`,
            outs: {
                ...inputs,
                message: `${this.greeting}, ${inputs.name}`,
                tokenLength: (this.token || "").length,
                region: this.region,
            },
        };
    },
};

class Greeter extends pulumi.dynamic.Resource {
    constructor(name, opts) {
        super(greeterProvider, name, { name, message: undefined, tokenLength: undefined, region: undefined }, opts);
    }
}

const greeter = new Greeter("world");
exports.message = greeter.message;
exports.tokenLength = greeter.tokenLength;
exports.region = greeter.region;
