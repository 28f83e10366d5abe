"use strict";
const { Resource } = require("./resource");

const first = new Resource("first", { state: 1 });
new Resource("second", { state: 2, resource: first });
