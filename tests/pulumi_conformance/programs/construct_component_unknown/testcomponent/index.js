// The Node.js component provider: `testcomponent:index:Component` must not see its unknown
// inputs' values, so the applies on them must never run (the provider exits if they do).
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, {}, opts);
        pulumi.output(args.message).apply(() => {
            console.log("should not run (message)");
            process.exit(1);
        });
        pulumi.output(args.nested).apply(() => {
            console.log("should not run (nested)");
            process.exit(1);
        });
    }
}

provider.main(
    {
        version: "0.0.1",
        construct: async (name, type, inputs, options) => {
            if (type !== "testcomponent:index:Component") {
                throw new Error(`unknown resource type ${type}`);
            }
            const component = new Component(name, inputs, options);
            return { urn: component.urn, state: {} };
        },
    },
    process.argv.slice(2),
);
