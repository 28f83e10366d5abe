"use strict";
// Every state bag replaced by the same nested one: each resource is updated, its diff
// between the odd property name and the new bag computed.
const pulumi = require("@pulumi/pulumi");
const { Resource } = require("./resource");

const names = new pulumi.Config().requireObject("propertyNames");
exports.resources = names.map(
    (_, i) => new Resource(`a${i}`, { state: { template: { metadata: { annotations: {} } } } }),
);
