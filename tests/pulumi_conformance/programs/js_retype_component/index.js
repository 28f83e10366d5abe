"use strict";
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");

class Box extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("conf:index:OldBox", name, {}, opts);
        this.pet = new random.RandomPet("inner", {}, { parent: this });
        this.registerOutputs({});
    }
}

exports.pet = new Box("box").pet.id;
