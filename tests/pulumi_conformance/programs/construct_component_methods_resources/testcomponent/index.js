// The Node.js component provider: the method `createRandom` of `testcomponent:index:Component`
// makes `myrandom` under the component (the built-in random provider's RandomString stands in
// for the Go testprovider's `Random`: a `result` of `length` characters) and answers its result.
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

class Random extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super("random:index/randomString:RandomString", name, { length: args.length, result: undefined }, opts);
    }
}

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, undefined, opts);
    }

    createRandom(length) {
        return new Random("myrandom", { length }, { parent: this }).result;
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
            if (token !== "testcomponent:index:Component/createRandom") {
                throw new Error(`unknown method ${token}`);
            }
            return { outputs: { result: inputs.__self__.createRandom(inputs.length) } };
        },
    },
    process.argv.slice(2),
);
