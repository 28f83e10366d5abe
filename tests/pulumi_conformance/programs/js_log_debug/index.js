"use strict";
// One debug message and one component.
const pulumi = require("@pulumi/pulumi");

class Widget extends pulumi.ComponentResource {
    constructor(name) {
        super("test:index:Widget", name);
    }
}

pulumi.log.debug("debugging the widget");
new Widget("widget");
