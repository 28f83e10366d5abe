// A remote component whose provider creates a slow child: the update waits for it.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, {}, opts, true);
    }
}

new Component("a");
