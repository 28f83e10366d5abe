// A TypeScript program with types of its own (an interface, a typed component, typed stack
// outputs), run by the SDK's ts-node with the project's tsconfig.pulumi.json. The unused local
// would fail under tsconfig.json (noUnusedLocals), which the tsconfig option replaces.
import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

interface PairArgs {
    length: number;
    prefix: string;
}

class Pair extends pulumi.ComponentResource {
    public readonly joined: pulumi.Output<string>;

    constructor(name: string, args: PairArgs, opts?: pulumi.ComponentResourceOptions) {
        super("stepdeck:test:TsPair", name, {}, opts);
        const make = (side: string): random.RandomString =>
            new random.RandomString(`${name}-${side}`, { length: args.length, special: false }, { parent: this });
        const left = make("left");
        const right = make("right");
        this.joined = pulumi.interpolate`${args.prefix}${left.result}-${right.result}`;
        this.registerOutputs({ joined: this.joined });
    }
}

const unused: number = 0;
const config = new pulumi.Config();
const length: number = config.getNumber("length") ?? 4;
const pair: Pair = new Pair("pair", { length, prefix: "ts:" });

export const joined: pulumi.Output<string> = pair.joined;
export const lengthUsed: number = length;
export const preloaded: string = process.env.STEPDECK_PRELOADED ?? "no";
