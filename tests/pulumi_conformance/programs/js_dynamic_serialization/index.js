// A dynamic provider whose methods capture module-level values and helpers: all of it is
// serialized into the state and runs in the provider process.
"use strict";
const pulumi = require("@pulumi/pulumi");

const greeting = { word: "hello", times: 2 };
function shout(s) {
    return s.toUpperCase();
}

const provider = {
    async create(inputs) {
        const text = Array(greeting.times).fill(shout(`${greeting.word} ${inputs.who}`)).join(" ");
        return { id: "greeting-" + inputs.who, outs: { who: inputs.who, text } };
    },
};

class Greeting extends pulumi.dynamic.Resource {
    constructor(name, who) {
        super(provider, name, { who, text: undefined }, {}, "greeter", "Greeting");
    }
}

const g = new Greeting("g", "world");
exports.text = g.text;
