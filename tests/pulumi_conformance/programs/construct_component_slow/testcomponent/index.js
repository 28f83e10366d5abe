// The Node.js component provider of `testcomponent:index:Component`: the component's child is
// a dynamic resource whose create takes seconds, longer than the construct, which returns
// without waiting for it; the engine must still create it.
"use strict";
const pulumi = require("@pulumi/pulumi");
const dynamic = require("@pulumi/pulumi/dynamic");
const provider = require("@pulumi/pulumi/provider");

const CREATION_DELAY_MS = 2000;

let nextId = 0;

const slow = {
    create: async () => {
        await new Promise((done) => setTimeout(done, CREATION_DELAY_MS));
        return { id: String(nextId++), outs: undefined };
    },
};

class SlowResource extends dynamic.Resource {
    constructor(name, opts) {
        super(slow, name, {}, opts);
    }
}

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, {}, opts);
        new SlowResource(`child-${name}`, { parent: this });
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
            return { urn: component.urn, state: {} };
        },
    },
    process.argv.slice(2),
);
