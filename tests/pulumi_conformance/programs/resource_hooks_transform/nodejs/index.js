// A transform appends a plain function to the after-create hooks of a resource and of a remote
// component; the component's transform also reaches the child its provider registers. `sim`
// stands in for the testprovider's Random, `testcomponent` for its Component.
"use strict";
const assert = require("assert");
const pulumi = require("@pulumi/pulumi");

const RANDOM = "sim:index:Resource";
const COMPONENT = "testcomponent:index:Component";

class Random extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super(RANDOM, name, { length: args.length }, opts);
    }
}

class Component extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super(COMPONENT, name, { length: args.length, childId: undefined }, opts, true);
    }
}

function fun(args) {
    if (args.name === "res") {
        pulumi.log.info(`fun was called with length = ${args.newInputs["length"]}`);
        assert.strictEqual(args.type, RANDOM);
    } else if (args.name === "comp") {
        const childId = args.newOutputs["childId"];
        pulumi.log.info(`fun_comp was called with child = ${childId}`);
        if (!childId) {
            throw new Error(`expected a child id, got '${childId}'`);
        }
        assert.strictEqual(args.type, COMPONENT);
    } else if (args.name === "child-comp") {
        pulumi.log.info(`fun_child was called with length = ${args.newInputs["length"]}`);
        assert.strictEqual(args.type, RANDOM);
    } else {
        throw new Error(`hook called for an unexpected resource: ${args.name}`);
    }
}

// Registered under its own name and never bound, as in Pulumi's program.
new pulumi.ResourceHook("hook_fun", fun);

function transform(args) {
    const hooks = args.opts.hooks || {};
    return {
        props: args.props,
        opts: { ...args.opts, hooks: { ...hooks, afterCreate: [...(hooks.afterCreate || []), fun] } },
    };
}

new Random("res", { length: 10 }, { transforms: [transform] });
new Component("comp", { length: 7 }, { transforms: [transform] });
