// The Node.js component provider: `testcomponent:index:Component` makes `children` dynamic
// resources under itself.
"use strict";
const pulumi = require("@pulumi/pulumi");
const dynamic = require("@pulumi/pulumi/dynamic");
const provider = require("@pulumi/pulumi/provider");

let nextId = 0;

class Child extends dynamic.Resource {
    constructor(name, opts) {
        const impl = {
            create: async () => ({ id: String(nextId++), outs: undefined }),
        };
        super(impl, name, {}, opts);
    }
}

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, {}, opts);
        const children = (args && args.children) || 0;
        for (let i = 1; i <= children; i++) {
            new Child(`child-${name}-${i}`, { parent: this });
        }
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
