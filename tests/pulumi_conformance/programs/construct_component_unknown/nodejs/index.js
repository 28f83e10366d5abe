// A dynamic resource's id, unknown until it is created, flows into a remote component's
// inputs, at the top and nested in an object.
"use strict";
const dynamic = require("@pulumi/pulumi/dynamic");
const { Component } = require("./component");

let nextId = 0;

class Resource extends dynamic.Resource {
    constructor(name, opts) {
        const impl = {
            create: async () => ({ id: String(nextId++), outs: undefined }),
        };
        super(impl, name, {}, opts);
    }
}

const resource = new Resource("resource");

new Component("component", {
    message: resource.id.apply((v) => `message ${v}`),
    nested: {
        value: resource.id.apply((v) => `nested.value ${v}`),
    },
});
