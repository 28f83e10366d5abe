// A remote component's method answers from the component's own outputs and its argument.
"use strict";
const { Component } = require("./component");

const component = new Component("component", { first: "Hello", second: "World" });
const result = component.getMessage({ name: "Alice" });

exports.message = result.message;
