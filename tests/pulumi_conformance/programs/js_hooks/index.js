// The Node.js half of `py_hooks`: hooks around create and delete, an error hook that retries
// a sim resource whose create fails once; every hook appends a line to `hooks.log`.
"use strict";
const fs = require("fs");
const path = require("path");
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");

const log = path.join(process.cwd(), "hooks.log");
const record = (line) => fs.appendFileSync(log, line + "\n");

const hooks = {
    beforeCreate: [
        new pulumi.ResourceHook("before-create", (args) =>
            record(`before_create ${args.name} length=${args.newInputs.length}`),
        ),
    ],
    afterCreate: [
        new pulumi.ResourceHook("after-create", (args) =>
            record(`after_create ${args.name} id=${args.id} length=${args.newOutputs.length}`),
        ),
    ],
    beforeDelete: [
        new pulumi.ResourceHook("before-delete", (args) =>
            record(`before_delete ${args.name} id=${args.id} length=${args.oldInputs.length}`),
        ),
    ],
    afterDelete: [
        new pulumi.ResourceHook("after-delete", (args) => record(`after_delete ${args.name} id=${args.id}`)),
    ],
};
const retrying = new pulumi.ErrorHook("retry-create", (args) => {
    record(`on_error ${args.name} ${args.failedOperation} errors=${args.errors.length}`);
    return args.errors.length < 3;
});

const config = new pulumi.Config();
if (!config.getBoolean("dropPet")) {
    const pet = new random.RandomPet("pet", { length: 2 }, { hooks });
    exports.pet = pet.id;
}
new pulumi.CustomResource(
    "sim:index:Resource",
    "flaky",
    { failOn: ["create"], failTimes: 1 },
    { hooks: { onError: [retrying] } },
);
