"use strict";
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");

class Box extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("conf:index:NewBox", name, {}, { ...opts, aliases: [{ type: "conf:index:OldBox" }] });
        this.pet = new random.RandomPet("inner", {}, { parent: this });
        this.registerOutputs({});
    }
}

exports.pet = new Box("box").pet.id;
