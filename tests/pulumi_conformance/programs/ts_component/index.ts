// A component with two random children and outputs of its own, typed as TypeScript checks them.
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

interface PairArgs {
    length: number;
}

class Pair extends pulumi.ComponentResource {
    public readonly words: pulumi.Output<string>;
    constructor(name: string, args: PairArgs, opts?: pulumi.ComponentResourceOptions) {
        super("conf:index:Pair", name, {}, opts);
        const left = new random.RandomPet(`${name}-left`, { length: args.length }, { parent: this });
        const right = new random.RandomPet(`${name}-right`, { length: args.length }, { parent: this });
        this.words = pulumi.interpolate`${left.id}+${right.id}`;
        this.registerOutputs({ words: this.words });
    }
}

const pair = new Pair("pair", { length: 2 });
export const words = pair.words;
