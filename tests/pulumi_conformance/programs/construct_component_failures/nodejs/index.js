// A remote component whose construct fails with an error about its input `foo`.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, { foo: args.foo }, opts, true);
    }
}

new Component("component", { foo: "bar" });
