// A program using the generated `@pulumi/kit` SDK: every kind of input, and every output read
// back through the SDK's typed properties.

import * as pulumi from "@pulumi/pulumi";
import * as kit from "@pulumi/kit";
import * as random from "@pulumi/random";

const parent = new pulumi.ComponentResource("ParentComponent", "parent");
const k = new kit.Kit("k", {
    label: "hello",
    count: pulumi.output(21),
    enabled: true,
    size: { width: 3, height: 4 },
    tags: ["a", pulumi.output("b")],
    weights: { x: 1, y: pulumi.output(2) },
    color: kit.Color.Red,
    note: new pulumi.asset.StringAsset("a note"),
    bundle: new pulumi.asset.AssetArchive({ inner: new pulumi.asset.StringAsset("inside") }),
}, { parent });

const isKit: boolean = kit.Kit.isInstance(k);
const width: pulumi.Output<number> = k.area.apply((a) => a.width);
const petName: pulumi.Output<string> = k.pet.id;

export const urn = k.urn;
export const shout = k.shout;
export const doubled = k.doubled;
export const disabled = k.disabled;
export const area = width;
export const upperTags = k.upperTags;
export const total = k.total;
export const otherColor = k.otherColor;
export const noteText = k.noteText;
export const bundleKeys = k.bundleKeys;
export const petIsRandomPet = k.pet.apply((p) => random.RandomPet.isInstance(p));
export const pet = petName;
export const instance = isKit;
