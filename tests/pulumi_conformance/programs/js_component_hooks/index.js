// After-hooks of a component resource run once the component registers its outputs, and see
// them, as Pulumi's `ExecuteRegisterResourceOutputs` runs them; each hook appends a line to
// `hooks.log`. With the config `broken`, a second component's after-create hook throws.
"use strict";
const fs = require("fs");
const path = require("path");
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");

const log = path.join(process.cwd(), "hooks.log");
const record = (line) => fs.appendFileSync(log, line + "\n");

class Holder extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("test:index:Holder", name, {}, opts);
        const pet = new random.RandomPet(`${name}-pet`, { length: 1 }, { parent: this });
        this.petId = pet.id;
        this.registerOutputs({ petId: pet.id });
    }
}

const afterCreate = new pulumi.ResourceHook("after-create", (args) =>
    record(`after_create ${args.name} petId=${args.newOutputs.petId}`),
);
const holder = new Holder("holder", { hooks: { afterCreate: [afterCreate] } });
exports.petId = holder.petId;

if (new pulumi.Config().getBoolean("broken")) {
    const failing = new pulumi.ResourceHook("after-create-fails", () => {
        throw new Error("the holder is not ready");
    });
    new Holder("broken", { hooks: { afterCreate: [failing] } });
}
