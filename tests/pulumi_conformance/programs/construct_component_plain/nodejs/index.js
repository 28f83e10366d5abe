// One remote component asked for five children with a plain number.
"use strict";
const { Component } = require("./component");

new Component("component", { children: 5 });
