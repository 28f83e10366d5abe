// A Node.js program constructing a component of the Python component provider `pairs`
// (provider/__main__.py): the provider registers the component and its children, and
// answers a method call on it.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Pair extends pulumi.ComponentResource {
    constructor(name, prefix, opts) {
        super("pairs:index:Pair", name, { prefix, first: undefined, second: undefined }, opts, true);
    }

    /** A method of the component, run by its provider (`Call`). */
    describe(greeting) {
        const result = pulumi.runtime.call("pairs:index:Pair/describe", { __self__: this, greeting }, this);
        return result.apply((r) => r.result);
    }
}

const pair = new Pair("pair", "p");
exports.first = pair.first;
exports.second = pair.second;
exports.described = pair.describe("hello");
