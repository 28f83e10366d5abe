"use strict";
// The program throws after registering its first resource: the second must not be deleted.
const { Random } = require("./random");

new Random("res1", { length: 10 });
throw new Error("This is a test error");
