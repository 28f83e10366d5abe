// Four remote components, each with a `sim:index:Resource` child of the same name: one left
// to the default sim provider, three given an explicit one (as `provider`, in a `providers`
// list, in a `providers` map); each child must use the provider its component was given.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Component extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("testcomponent:index:Component", name, { result: undefined }, opts, true);
    }
}

class SimProvider extends pulumi.ProviderResource {
    constructor(name, opts) {
        super("sim", name, {}, opts);
    }
}

const explicit = new SimProvider("explicit");

new Component("uses_default");
new Component("uses_provider", { provider: explicit });
new Component("uses_providers", { providers: [explicit] });
new Component("uses_providers_map", { providers: { sim: explicit } });
