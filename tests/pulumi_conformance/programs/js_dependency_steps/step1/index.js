"use strict";
const { Resource } = require("./resource");

// The dependency turned around: `second` no longer needs `first`, `first` needs `second`.
const second = new Resource("second", { state: 2 });
new Resource("first", { state: 1, resource: second });
