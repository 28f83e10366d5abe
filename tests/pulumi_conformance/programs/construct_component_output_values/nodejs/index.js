// The component `testcomponent:index:Component`, remote: its provider checks that each input
// arrives as a plain value, except the secret tag, which arrives as an output.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, args, opts, true);
    }
}

new Component("component", {
    foo: { something: "hello" },
    bar: { tags: { a: "world", b: pulumi.secret("shh") } },
});
