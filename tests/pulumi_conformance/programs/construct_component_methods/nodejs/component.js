// The program's view of `testcomponent:index:Component` and its method `getMessage`, which
// its provider runs (`Call`).
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, args, opts, true);
    }

    getMessage(args) {
        return pulumi.runtime.call(
            "testcomponent:index:Component/getMessage",
            { __self__: this, name: args.name },
            this,
        );
    }
}

exports.Component = Component;
