import * as pulumi from "@pulumi/pulumi";

/** What the component is given: a string it hands back. */
export interface ComponentArgs {
    echo: pulumi.Input<string>;
}

/** A component of package typescript-b whose only output is its input. */
export class Component extends pulumi.ComponentResource {
    public readonly echo: pulumi.Output<string>;

    constructor(name: string, args: ComponentArgs, opts?: pulumi.ComponentResourceOptions) {
        super("typescript-b:index:Component", name, args, opts);
        this.echo = pulumi.output(args.echo);
        this.registerOutputs({ echo: this.echo });
    }
}
