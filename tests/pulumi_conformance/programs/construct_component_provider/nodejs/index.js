// A remote component given its package's provider in `providers`: the component provider
// rehydrates that provider and answers with the provider's `message`.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Provider extends pulumi.ProviderResource {
    constructor(name, message, opts) {
        super("testcomponent", name, { message }, opts);
    }
}

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, { message: undefined }, opts, true);
    }
}

const component = new Component("mycomponent", {
    providers: { testcomponent: new Provider("myprovider", "hello world") },
});

exports.message = component.message;
