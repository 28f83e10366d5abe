// The program's view of `testcomponent:index:Component` and its method `getMessage`.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, undefined, opts, true);
    }

    getMessage(args) {
        return pulumi.runtime.call(
            "testcomponent:index:Component/getMessage",
            { __self__: this, echo: args.echo },
            this,
        );
    }
}

exports.Component = Component;
