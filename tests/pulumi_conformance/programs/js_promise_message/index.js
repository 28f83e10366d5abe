// The program exits with 0 while a promise the SDK tracks is pending: the SDK reports the leak
// (naming PULUMI_DEBUG_PROMISE_LEAKS) and the update fails.
"use strict";
const debuggable = require("@pulumi/pulumi/runtime/debuggable");

debuggable.debuggablePromise(new Promise((resolve) => setTimeout(resolve, 600000)), "a long wait");

process.exit(0);
