// Step 1: the program constructs `pairs:index:Trio`, a type the provider does not know; its
// construct fails, and so does the update, with the provider's message.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Trio extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("pairs:index:Trio", name, {}, opts, true);
    }
}

new Trio("trio");
