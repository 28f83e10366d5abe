// Two components, given another package's provider as `provider` and in `providers`; the
// method calls still reach the component's own provider.
"use strict";
const { Component } = require("./component");
const { TestProvider } = require("./testProvider");

const testProvider = new TestProvider("testProvider");

const component1 = new Component("component1", { first: "Hello", second: "World" }, { provider: testProvider });
const result1 = component1.getMessage({ name: "Alice" });

const component2 = new Component("component2", { first: "Hi", second: "There" }, { providers: [testProvider] });
const result2 = component2.getMessage({ name: "Bob" });

exports.message1 = result1.message;
exports.message2 = result2.message;
