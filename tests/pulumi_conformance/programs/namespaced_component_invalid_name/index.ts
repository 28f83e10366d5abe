import * as pulumi from "@pulumi/pulumi";

/** An input type with nothing in it: the schema still names it under the package. */
export interface Nested {
}

/** The component's arguments: one input of the nested type. */
export interface MyComponentArgs {
    anInput: Nested;
}

/** A component that registers nothing under it. */
export class MyComponent extends pulumi.ComponentResource {
    constructor(name: string, args: MyComponentArgs, opts?: pulumi.ComponentResourceOptions) {
        super("namespaced-component:index:MyComponent", name, args, opts);
    }
}
