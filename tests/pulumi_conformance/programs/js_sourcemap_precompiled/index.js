"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.willThrow = willThrow;
var pulumi = require("@pulumi/pulumi");
// Logs an error, then throws from line 6, column 15 of this file.
function willThrow() {
    pulumi.log.error("about to throw from the TypeScript source");
    throw new Error("this is a test error");
}
willThrow();
//# sourceMappingURL=index.js.map