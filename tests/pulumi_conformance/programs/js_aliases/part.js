"use strict";
// A component of any type, with children made by a callback given the component.
const pulumi = require("@pulumi/pulumi");

class Part extends pulumi.ComponentResource {
    constructor(type, name, opts, children) {
        super(type, name, {}, opts);
        if (children) {
            children(this);
        }
    }
}

/** Options making `parent` the parent, with any other options. */
const under = (parent, more) => ({ parent, ...more });

module.exports = { Part, under };
