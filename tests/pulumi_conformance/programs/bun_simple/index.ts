import * as process from "process";
import * as pulumi from "@pulumi/pulumi";

// A `sim` resource standing in for the test provider's Echo: its `echo` input comes back as
// an output of the same name.
class Echo extends pulumi.CustomResource {
    declare public readonly echo: pulumi.Output<string>;

    constructor(name: string, echo: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions) {
        super("sim:index:Resource", name, { echo }, opts);
    }
}

const res = new Echo("res", "hello");

export const name = res.echo;
// Set only when bun, not node, runs the program.
export const isBun = process.versions.bun !== undefined;
export const execPath = process.execPath;
