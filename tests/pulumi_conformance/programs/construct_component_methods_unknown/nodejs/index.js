// A method called with an unknown argument answers unknown in preview: the apply on its
// result must not run (the program exits if it does).
"use strict";
const { Component } = require("./component");
const { Random } = require("./random");

const r = new Random("resource", { length: 10 });
const component = new Component("component");

exports.result = component.getMessage({ echo: r.id }).apply(() => {
    console.log("should not run (result)");
    process.exit(1);
});
