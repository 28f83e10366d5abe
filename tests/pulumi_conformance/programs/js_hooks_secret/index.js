// A before-create hook sees a secret input as a secret output holding its value (`sim` stands
// in for the testprovider's Echo).
"use strict";
const assert = require("assert");
const pulumi = require("@pulumi/pulumi");

class Echo extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super("sim:index:Resource", name, { echo: args.echo }, opts);
    }
}

async function checkSecret(args) {
    const echoed = args.newInputs["echo"];
    assert.strictEqual(await echoed.isSecret, true, "the hook's input lost its secretness");
    assert.strictEqual(await echoed.promise(), "hello secret");
    pulumi.log.info("hook called");
}

new Echo("echo", { echo: pulumi.secret("hello secret") }, { hooks: { beforeCreate: [checkSecret] } });
