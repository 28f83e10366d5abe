import * as pulumi from "@pulumi/pulumi";

// Logs an error, then throws from line 6, column 15 of this file.
export function willThrow() {
    pulumi.log.error("about to throw from the TypeScript source");
    throw new Error("this is a test error");
}

willThrow();
