// The program's view of `testcomponent:index:Component`: a remote component whose provider
// builds its children.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("testcomponent:index:Component", name, args, opts, true);
    }
}

exports.Component = Component;
