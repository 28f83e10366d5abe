// The method makes a resource under the component; its result is the stack's output.
"use strict";
const { Component } = require("./component");

const component = new Component("component");

exports.result = component.createRandom({ length: 10 }).result;
