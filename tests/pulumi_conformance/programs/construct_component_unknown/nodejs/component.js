// The program's view of `testcomponent:index:Component`, whose inputs are a message and a
// nested object.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, args, opts, true);
    }
}

exports.Component = Component;
