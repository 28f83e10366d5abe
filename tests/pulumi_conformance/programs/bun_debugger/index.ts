import * as pulumi from "@pulumi/pulumi";

// Nothing but an output: the case is about the program waiting for, and running after, a debugger.
export const message = "hello";
