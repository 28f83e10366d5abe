// The Node.js component provider: the method `getMessage` of `testcomponent:index:Component`
// applies on its argument, which must not run while the argument is unknown (the provider
// exits if it does).
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, undefined, opts);
    }

    getMessage(echo) {
        return pulumi.output(echo).apply(() => {
            console.log("should not run (echo)");
            process.exit(1);
        });
    }
}

const version = "0.0.1";

pulumi.runtime.registerResourceModule("testcomponent", "index", {
    version,
    construct: (name, type, urn) => {
        if (type !== "testcomponent:index:Component") {
            throw new Error(`unknown resource type ${type}`);
        }
        return new Component(name, { urn });
    },
});

provider.main(
    {
        version,
        construct: async (name, type, inputs, options) => {
            if (type !== "testcomponent:index:Component") {
                throw new Error(`unknown resource type ${type}`);
            }
            const component = new Component(name, options);
            return { urn: component.urn, state: inputs };
        },
        call: async (token, inputs) => {
            if (token !== "testcomponent:index:Component/getMessage") {
                throw new Error(`unknown method ${token}`);
            }
            return { outputs: { message: inputs.__self__.getMessage(inputs.echo) } };
        },
    },
    process.argv.slice(2),
);
