// The Node.js component provider of `testcomponent:index:Component`: the component's output
// `foo` comes from an apply that throws, so the construct fails with that error.
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

class Component extends pulumi.ComponentResource {
    constructor(name, foo, opts) {
        super("testcomponent:index:Component", name, {}, opts);
        this.foo = pulumi.output(foo);
        this.registerOutputs({ foo: this.foo });
    }
}

provider.main(
    {
        version: "0.0.1",
        construct: async (name, type) => {
            if (type !== "testcomponent:index:Component") {
                throw new Error(`unknown resource type ${type}`);
            }
            const foo = pulumi.output("").apply(() => {
                throw new Error("intentional error from within an apply");
            });
            const component = new Component(name, foo);
            return { urn: component.urn, state: { foo: component.foo } };
        },
    },
    process.argv.slice(2),
);
