// The program's view of `testcomponent:index:Component` and its method `createRandom`.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, undefined, opts, true);
    }

    createRandom(args) {
        return pulumi.runtime.call(
            "testcomponent:index:Component/createRandom",
            { __self__: this, length: args.length },
            this,
        );
    }
}

exports.Component = Component;
