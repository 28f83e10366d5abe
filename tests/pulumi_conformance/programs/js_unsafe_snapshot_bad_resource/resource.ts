import * as pulumi from "@pulumi/pulumi";

/** Numbers its resources and keeps their inputs; a changed `state` replaces, deleting first. */
class NumberingProvider implements pulumi.dynamic.ResourceProvider {
    private next = 0;

    async check(olds: any, news: any): Promise<pulumi.dynamic.CheckResult> {
        // A resource created again after its delete must not be checked against its old inputs.
        if (olds.state === 99 && news.state === 22) {
            return {
                inputs: news,
                failures: [{ property: "state", reason: "the recreated resource was checked against its deleted inputs" }],
            };
        }
        return { inputs: news };
    }

    async diff(_id: pulumi.ID, olds: any, news: any): Promise<pulumi.dynamic.DiffResult> {
        if (olds.state !== news.state) {
            return { changes: true, replaces: ["state"], deleteBeforeReplace: true };
        }
        return { changes: false };
    }

    async create(inputs: any): Promise<pulumi.dynamic.CreateResult> {
        const id = String(this.next);
        this.next += 1;
        return { id, outs: inputs };
    }
}

const provider = new NumberingProvider();

export interface ResourceArgs {
    readonly uniqueKey?: pulumi.Input<number>;
    readonly state: pulumi.Input<number>;
}

export class Resource extends pulumi.dynamic.Resource {
    declare public readonly uniqueKey: pulumi.Output<number | undefined>;
    declare public readonly state: pulumi.Output<number>;

    constructor(name: string, args: ResourceArgs, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, args, opts);
    }
}
