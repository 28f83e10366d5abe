import * as pulumi from "@pulumi/pulumi";

export function failHere(): void {
    pulumi.log.error("about to throw");
    // The throw below is line 6, column 15 ("new"), as the stack trace must say.
    const e = new Error("thrown from the TypeScript source");
    throw e;
}

failHere();
