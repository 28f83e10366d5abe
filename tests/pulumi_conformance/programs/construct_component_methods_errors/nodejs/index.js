// The method's provider answers with a failure, which fails the program.
"use strict";
const { Component } = require("./component");

const component = new Component("component");
const result = component.getMessage({ echo: "hello" });

exports.message = result.message;
