"use strict";
const { Random } = require("./random");

new Random("res1", { length: 10 });
new Random("res2", { length: 10 });
