// Remote components constructed by an explicit provider configured with a message: one given
// it as `provider`, one the child of a local component given it in `providers`. Default
// providers are disabled, so neither may fall back to one.
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

class LocalComponent extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("my:index:LocalComponent", name, {}, opts);
        this.message = new Component(`${name}-mycomponent`, { parent: this }).message;
    }
}

const provider = new Provider("myprovider", "hello world");
const component = new Component("mycomponent", { provider });
const local = new LocalComponent("mylocalcomponent", { providers: [provider] });

exports.message = component.message;
exports.nestedMessage = local.message;
