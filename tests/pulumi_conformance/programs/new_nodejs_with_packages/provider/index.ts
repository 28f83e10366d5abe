import * as pulumi from "@pulumi/pulumi";

/** The component takes no inputs; its schema is inferred from this source. */
export interface MyComponentArgs {}

export class MyComponent extends pulumi.ComponentResource {
    constructor(name: string, args: MyComponentArgs, opts?: pulumi.ComponentResourceOptions) {
        super("provider:index:MyComponent", name, args, opts);
    }
}
