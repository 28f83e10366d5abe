"use strict";
exports.xyz = "DEF";
exports.foo = 1;
throw new Error("the program stops here");
