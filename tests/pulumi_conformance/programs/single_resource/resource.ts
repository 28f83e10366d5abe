import * as pulumi from "@pulumi/pulumi";

let nextId = 0;

/** Creates each resource under the next number as its id, with no outputs of its own. */
class CountingProvider implements pulumi.dynamic.ResourceProvider {
    async create(_inputs: any): Promise<pulumi.dynamic.CreateResult> {
        const id = String(nextId);
        nextId += 1;
        return { id, outs: undefined };
    }
}

const provider = new CountingProvider();

/** A resource holding an arbitrary `state` input. */
export class Resource extends pulumi.dynamic.Resource {
    public readonly state?: any;

    constructor(name: string, args: { state?: any }, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, args, opts);
        this.state = args.state;
    }
}
