// The Node.js component provider of `testcomponent:index:Component`: its constructor fails
// unless `foo` and `bar` (and `bar.tags`) arrive as plain values, `bar.tags.a` as "world" and
// the secret `bar.tags.b` as an output of "shh".
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

function plain(what, value) {
    if (value === undefined || value === null) {
        throw new Error(`expected ${what} to be present`);
    }
    if (pulumi.Output.isInstance(value) || typeof value.then === "function") {
        throw new Error(`expected ${what} to be a plain value`);
    }
    return value;
}

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, args, opts);
        const foo = plain("args.foo", args.foo);
        if (foo.something !== "hello") {
            throw new Error(`expected args.foo.something to be "hello", got ${foo.something}`);
        }
        const tags = plain("args.bar.tags", plain("args.bar", args.bar).tags);
        if (tags.a !== "world") {
            throw new Error(`expected args.bar.tags.a to be "world", got ${tags.a}`);
        }
        if (!pulumi.Output.isInstance(tags.b)) {
            throw new Error("expected args.bar.tags.b to be an output");
        }
        tags.b.apply((b) => {
            if (b !== "shh") {
                throw new Error(`expected args.bar.tags.b to be "shh", got ${b}`);
            }
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
            return { urn: component.urn, state: inputs };
        },
    },
    process.argv.slice(2),
);
