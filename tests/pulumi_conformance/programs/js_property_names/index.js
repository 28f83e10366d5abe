"use strict";
// One resource per property name from config, each with a state bag holding that name.
const pulumi = require("@pulumi/pulumi");
const { Resource } = require("./resource");

const names = new pulumi.Config().requireObject("propertyNames");
exports.resources = names.map((name, i) => new Resource(`a${i}`, { state: { [name]: "foo" } }));
