// An explicit provider of another package than the component's (a `sim` provider stands in
// for the Go testprovider).
"use strict";
const pulumi = require("@pulumi/pulumi");

class TestProvider extends pulumi.ProviderResource {
    constructor(name) {
        super("sim", name);
    }
}

exports.TestProvider = TestProvider;
