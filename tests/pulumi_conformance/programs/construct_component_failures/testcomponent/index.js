// The Node.js component provider of `testcomponent:index:Component`: it makes the component,
// then fails the construct with an input properties error naming `foo`.
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
            if (type !== "testcomponent:index:Component") {
                throw new Error(`unknown resource type ${type}`);
            }
            new Component(name, inputs.foo, options);
            throw new pulumi.InputPropertiesError({
                message: "failing for a reason",
                errors: [{ propertyPath: "foo", reason: "the failure reason" }],
            });
        },
    },
    process.argv.slice(2),
);
