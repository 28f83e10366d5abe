// The `kit` component provider of the Node.js SDK generator's tests: Pulumi's Node.js
// run-plugin hosts the component this module exports. `Kit` answers one output of each
// property kind a generated SDK has to carry, computed from its inputs, and a random pet
// child returned as a resource reference.

import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

export enum Color {
    Red = "red",
    Blue = "blue",
}

export interface Size {
    width: number;
    height?: number;
}

export interface KitArgs {
    label: pulumi.Input<string>;
    count: pulumi.Input<number>;
    enabled?: pulumi.Input<boolean>;
    size: pulumi.Input<Size>;
    tags: pulumi.Input<string[]>;
    weights: pulumi.Input<{ [key: string]: number }>;
    color: pulumi.Input<Color>;
    note: pulumi.Input<pulumi.asset.Asset>;
    bundle: pulumi.Input<pulumi.asset.Archive>;
}

export class Kit extends pulumi.ComponentResource {
    shout: pulumi.Output<string>;
    doubled: pulumi.Output<number>;
    disabled: pulumi.Output<boolean>;
    area: pulumi.Output<Size>;
    upperTags: pulumi.Output<string[]>;
    total: pulumi.Output<number>;
    otherColor: pulumi.Output<Color>;
    noteText: pulumi.Output<string>;
    bundleKeys: pulumi.Output<string[]>;
    pet: pulumi.Output<random.RandomPet>;

    constructor(name: string, args: KitArgs, opts?: pulumi.ComponentResourceOptions) {
        super("kit:index:Kit", name, {}, opts);
        this.shout = pulumi.output(args.label).apply((l) => l.toUpperCase());
        this.doubled = pulumi.output(args.count).apply((c) => c * 2);
        this.disabled = pulumi.output(args.enabled).apply((e) => !e);
        this.area = pulumi.output(args.size).apply((s) => ({ width: s.width * (s.height ?? 1) }));
        this.upperTags = pulumi.output(args.tags).apply((t) => t.map((x) => x.toUpperCase()));
        this.total = pulumi.output(args.weights).apply((w) => Object.values(w).reduce((a, b) => a + b, 0));
        this.otherColor = pulumi.output(args.color).apply((c) => (c === Color.Red ? Color.Blue : Color.Red));
        this.noteText = pulumi.output(args.note).apply(async (a) => (await (a as any).text) as string);
        this.bundleKeys = pulumi.output(args.bundle).apply(async (a) => Object.keys(await (a as any).assets));
        this.pet = pulumi.output(new random.RandomPet(`${name}-pet`, { length: 2 }, { parent: this }));
        this.registerOutputs({});
    }
}
