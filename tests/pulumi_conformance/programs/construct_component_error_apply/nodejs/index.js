// A remote component whose provider's construct throws inside an apply: the update fails
// with that error and the provider shuts down rather than hanging.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, { foo: args.foo }, opts, true);
    }
}

new Component("a", { foo: "bar" });
