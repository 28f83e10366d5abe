// A method call on a remote component (`getMessage`) that its provider fails with an error
// about the input `foo`.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, { foo: args.foo }, opts, true);
    }

    getMessage(args) {
        return pulumi.runtime.call(
            "testcomponent:index:Component/getMessage",
            { __self__: this, echo: args.echo },
            this,
        );
    }
}

const component = new Component("testComponent", { foo: "bar" });
component.getMessage({ echo: "hello" }).message;
