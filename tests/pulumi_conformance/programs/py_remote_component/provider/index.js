// The `pairs` component provider: `pairs:index:Pair` makes two random pets under a component,
// and its method `describe` answers a greeting, as a multi-language component provider
// written with the Node.js SDK does.
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");
const random = require("@pulumi/random");

class Pair extends pulumi.ComponentResource {
    constructor(name, prefix, opts) {
        super("pairs:index:Pair", name, {}, opts);
        const child = { parent: this };
        this.first = new random.RandomPet(`${name}-first`, { prefix, length: 1 }, child);
        this.second = new random.RandomPet(`${name}-second`, { prefix, length: 1 }, child);
        this.registerOutputs({ first: this.first.id, second: this.second.id });
    }
}

provider.main(
    {
        version: "0.0.1",
        construct: async (name, type, inputs, options) => {
            if (type !== "pairs:index:Pair") {
                throw new Error(`unknown resource type ${type}`);
            }
            const pair = new Pair(name, inputs.prefix, options);
            return { urn: pair.urn, state: { first: pair.first.id, second: pair.second.id } };
        },
        call: async (token, inputs) => {
            if (token !== "pairs:index:Pair/describe") {
                throw new Error(`unknown method ${token}`);
            }
            // `__self__` arrives as the component's URN when no resource module rehydrates it.
            const me = inputs.__self__;
            const urn = typeof me === "string" ? me : await new Promise((done) => me.urn.apply(done));
            return { outputs: { result: `${inputs.greeting} from ${urn.split("::").pop()}` } };
        },
    },
    process.argv.slice(2),
);
