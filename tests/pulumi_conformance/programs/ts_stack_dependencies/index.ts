// Two dynamic resources: the second reads an output of the first, so depends on it.
import * as pulumi from "@pulumi/pulumi";

const counter: pulumi.dynamic.ResourceProvider = {
    async create(inputs: any) {
        return { id: `n-${inputs.n}`, outs: { n: inputs.n, next: inputs.n + 1 } };
    },
};

class Counter extends pulumi.dynamic.Resource {
    public readonly next!: pulumi.Output<number>;
    constructor(name: string, n: pulumi.Input<number>) {
        super(counter, name, { n, next: undefined }, {});
    }
}

const first = new Counter("first", 1);
const second = new Counter("second", first.next);
export const last: pulumi.Output<number> = second.next;
