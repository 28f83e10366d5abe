// Random resources feeding each other, a component with a child, a local command, config,
// secret config and stack outputs.
"use strict";
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");
const command = require("@pulumi/command");

const config = new pulumi.Config();
const greeting = config.get("greeting") || "hello";
const token = config.requireSecret("token");
const keeper = config.get("keeper") || "k1";

class Pair extends pulumi.ComponentResource {
    constructor(name, seed, opts) {
        super("stepdeck:test:Pair", name, {}, opts);
        this.child = new random.RandomString(`${name}-child`, {
            length: 4,
            special: false,
            keepers: { seed },
        }, { parent: this });
        this.registerOutputs({ childResult: this.child.result });
    }
}

const first = new random.RandomString("first", { length: 8, special: false });
const second = new random.RandomString("second", {
    length: 6,
    special: false,
    keepers: { from: first.result, keeper },
});
const pair = new Pair("pair", first.result);
const echo = new command.local.Command("echo", {
    create: `echo ${greeting} $FIRST`,
    environment: { FIRST: first.result },
});

console.log(`program says ${greeting}`);
exports.greeting = greeting;
exports.first = first.result;
exports.second = second.result;
exports.child = pair.child.result;
exports.echoed = echo.stdout;
exports.token = token;
