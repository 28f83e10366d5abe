// The Node.js component provider of `testcomponent:index:Component`: the component finds its
// package's provider among its options (a reference the SDK rehydrates through the resource
// package registered here) and exports that provider's `message`.
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

const version = "0.0.1";

class Provider extends pulumi.ProviderResource {
    constructor(name, opts) {
        super("testcomponent", name, { message: undefined }, opts);
    }
}

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, {}, opts);
    }

    // Runs within the constructor (up to its first await), so `message` is set when the
    // construct answers.
    async initialize(args) {
        super.initialize(args);
        const mine = this.getProvider("testcomponent::");
        if (!(mine instanceof Provider)) {
            throw new Error(`the component's provider is not a Provider: ${mine}`);
        }
        this.message = mine.message;
        this.registerOutputs({ message: mine.message });
        return undefined;
    }
}

pulumi.runtime.registerResourcePackage("testcomponent", {
    version,
    constructProvider: (name, type, urn) => {
        if (type !== "pulumi:providers:testcomponent") {
            throw new Error(`unknown provider type ${type}`);
        }
        return new Provider(name, { urn });
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
            return { urn: component.urn, state: { message: component.message } };
        },
    },
    process.argv.slice(2),
);
