// The Node.js component provider: `testcomponent:index:Component` keeps its inputs `first`
// and `second` as outputs; its method `getMessage` runs on the component rehydrated from the
// reference the program passes (`__self__`), through the resource module registered here.
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        const rehydrated = Boolean(opts && opts.urn);
        super(
            "testcomponent:index:Component",
            name,
            rehydrated ? { first: undefined, second: undefined } : args,
            opts,
        );
        if (!rehydrated) {
            this.registerOutputs(args);
        }
    }

    getMessage(name) {
        return pulumi.all([this.first, this.second, name]).apply(([a, b, n]) => `${a} ${b}, ${n}!`);
    }
}

const version = "0.0.1";

pulumi.runtime.registerResourceModule("testcomponent", "index", {
    version,
    construct: (name, type, urn) => {
        if (type !== "testcomponent:index:Component") {
            throw new Error(`unknown resource type ${type}`);
        }
        return new Component(name, undefined, { urn });
    },
});

provider.main(
    {
        version,
        construct: async (name, type, inputs, options) => {
            if (type !== "testcomponent:index:Component") {
                throw new Error(`unknown resource type ${type}`);
            }
            const component = new Component(name, inputs, options);
            return { urn: component.urn, state: inputs };
        },
        call: async (token, inputs) => {
            if (token !== "testcomponent:index:Component/getMessage") {
                throw new Error(`unknown method ${token}`);
            }
            return { outputs: { message: inputs.__self__.getMessage(inputs.name) } };
        },
    },
    process.argv.slice(2),
);
