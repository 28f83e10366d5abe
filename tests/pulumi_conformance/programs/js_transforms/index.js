// Stack, resource and invoke transforms: every random resource is tagged through its keepers,
// `db` is renamed with the alias added by a transform, a component's transform reaches its
// child, and an invoke transform rewrites the command `local.run` runs.
"use strict";
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");
const command = require("@pulumi/command");

const config = new pulumi.Config();
const renamed = config.getBoolean("renamed") || false;
const fail = config.getBoolean("fail") || false;

pulumi.runtime.registerResourceTransform((args) => {
    if (!args.type.startsWith("random:")) {
        return undefined;
    }
    const before = args.props.keepers || {};
    const keepers = { ...before, owner: "platform", order: (before.order || "") + ">stack" };
    return { props: { ...args.props, keepers }, opts: args.opts };
});

pulumi.runtime.registerResourceTransform((args) => {
    if (args.name !== "db-renamed") {
        return undefined;
    }
    return {
        props: args.props,
        opts: pulumi.mergeOptions(args.opts, { aliases: [{ name: "db" }] }),
    };
});

pulumi.runtime.registerResourceTransform((args) => {
    if (args.name === "late") {
        throw new Error("late resources are not allowed here");
    }
    return undefined;
});

pulumi.runtime.registerInvokeTransform((args) => {
    if (args.token !== "command:local:run") {
        return undefined;
    }
    return { args: { ...args.args, command: "echo transformed" }, opts: args.opts };
});

class Box extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("test:index:Box", name, {}, opts);
        this.inner = new random.RandomString(`${name}-inner`, { length: 4, special: false }, { parent: this });
        this.registerOutputs({});
    }
}

const lengthen = (args) =>
    args.type === "random:index/randomString:RandomString"
        ? {
              props: {
                  ...args.props,
                  length: 12,
                  keepers: { ...(args.props.keepers || {}), order: ">component" },
              },
              opts: args.opts,
          }
        : undefined;

const box = new Box("box", { transforms: [lengthen] });
const db = new random.RandomPet(renamed ? "db-renamed" : "db", { length: 2 });
const ran = command.local.runOutput({ command: "echo original" });

if (fail) {
    new random.RandomPet("late", { length: 1 });
}

exports.innerLength = box.inner.length;
exports.innerResult = box.inner.result;
exports.dbId = db.id;
exports.dbKeepers = db.keepers;
exports.ran = ran.stdout;
