"use strict";
const pulumi = require("@pulumi/pulumi");

new pulumi.Config("config_missing_js").requireSecret("notFound");
