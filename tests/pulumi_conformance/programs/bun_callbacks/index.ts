import * as process from "process";
import * as pulumi from "@pulumi/pulumi";

// A `sim` resource standing in for the test provider's Echo.
class Echo extends pulumi.CustomResource {
    declare public readonly echo: pulumi.Output<string>;

    constructor(name: string, echo: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions) {
        super("sim:index:Resource", name, { echo }, opts);
    }
}

// Runs in the program when the engine calls back before creating `echo`.
async function sayCalled(_args: pulumi.ResourceHookArgs): Promise<void> {
    pulumi.log.info("hook called");
}

new Echo("echo", "hello", { hooks: { beforeCreate: [sayCalled] } });

export const isBun = process.versions.bun !== undefined;
