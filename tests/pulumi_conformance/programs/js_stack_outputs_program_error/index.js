"use strict";
exports.xyz = "ABC";
exports.foo = 42;
