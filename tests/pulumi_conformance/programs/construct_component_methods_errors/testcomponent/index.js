// The Node.js component provider: the method `getMessage` of `testcomponent:index:Component`
// answers with a check failure instead of outputs.
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, undefined, opts);
    }
}

provider.main(
    {
        version: "0.0.1",
        construct: async (name, type, inputs, options) => {
            if (type !== "testcomponent:index:Component") {
                throw new Error(`unknown resource type ${type}`);
            }
            const component = new Component(name, options);
            return { urn: component.urn, state: inputs };
        },
        call: async (token) => {
            if (token !== "testcomponent:index:Component/getMessage") {
                throw new Error(`unknown method ${token}`);
            }
            return { failures: [{ property: "the failure property", reason: "the failure reason" }] };
        },
    },
    process.argv.slice(2),
);
