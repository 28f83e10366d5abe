// A dynamic provider that replaces (delete before replace) on any change of `state`, and whose
// Check refuses to compare a recreated resource's new inputs with the inputs of the copy the
// engine already deleted.
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "@pulumi/pulumi/dynamic";

let counter = 0;

const provider: dynamic.ResourceProvider = {
    async check(olds: any, news: any): Promise<dynamic.CheckResult> {
        if (olds.state === 7 && news.state === 31) {
            return {
                inputs: news,
                failures: [{ property: "state", reason: "Check compared a recreated resource with its deleted inputs" }],
            };
        }
        return { inputs: news };
    },
    async diff(_id: pulumi.ID, olds: any, news: any): Promise<dynamic.DiffResult> {
        if (olds.state !== news.state) {
            return { changes: true, replaces: ["state"], deleteBeforeReplace: true };
        }
        return { changes: false };
    },
    async create(inputs: any): Promise<dynamic.CreateResult> {
        counter += 1;
        return { id: `r-${inputs.state}-${counter}-${Date.now()}`, outs: inputs };
    },
};

export interface ThingArgs {
    key?: pulumi.Input<number>;
    state: pulumi.Input<number>;
}

export class Thing extends pulumi.dynamic.Resource {
    public readonly state!: pulumi.Output<number>;
    constructor(name: string, args: ThingArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, { ...args }, opts);
    }
}
