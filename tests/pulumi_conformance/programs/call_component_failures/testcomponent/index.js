// The Node.js component provider of `testcomponent:index:Component`: constructs succeed, and
// the method `getMessage` fails with an input property error naming `foo`.
"use strict";
const pulumi = require("@pulumi/pulumi");
const provider = require("@pulumi/pulumi/provider");

class Component extends pulumi.ComponentResource {
    constructor(name, foo, opts) {
        super("testcomponent:index:Component", name, undefined, opts);
        this.foo = pulumi.output(foo);
        this.registerOutputs({ foo: this.foo });
    }
}

provider.main(
    {
        version: "0.0.1",
        construct: async (name, type, inputs, options) => {
            const component = new Component(name, inputs.foo, options);
            return { urn: component.urn, state: inputs };
        },
        call: async (token) => {
            if (token !== "testcomponent:index:Component/getMessage") {
                throw new Error(`unknown method ${token}`);
            }
            throw new pulumi.InputPropertyError({ propertyPath: "foo", reason: "the failure reason" });
        },
    },
    process.argv.slice(2),
);
