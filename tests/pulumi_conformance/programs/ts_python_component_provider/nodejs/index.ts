// Constructs the Python provider's MyComponent through `@pulumi/provider`, the SDK that
// `package add ../provider` generated from the provider's schema, with an input of each kind.

import * as pulumi from "@pulumi/pulumi";
import * as provider from "@pulumi/provider";

const parent = new pulumi.ComponentResource("ParentComponent", "parent");

const comp = new provider.MyComponent("comp", {
    strInput: "hello",
    optionalIntInput: 42,
    dictInput: { a: 1, b: 2, c: 3 },
    listInput: ["a", "b", "c"],
    complexInput: {
        nestedInput: { strPlain: "this is nested" },
        strInput: "world",
    },
    assetInput: new pulumi.asset.StringAsset("Hello, World!"),
    archiveInput: new pulumi.asset.AssetArchive({
        asset1: new pulumi.asset.StringAsset("im inside an archive"),
    }),
    enumInput: provider.Emu.A,
}, { parent });

export const urn = comp.urn;
export const strOutput = comp.strOutput;
export const optionalIntOutput = comp.optionalIntOutput;
export const complexOutput = comp.complexOutput;
export const listOutput = comp.listOutput;
export const dictOutput = comp.dictOutput;
export const assetOutput = comp.assetOutput;
export const archiveOutput = comp.archiveOutput;
export const enumOutput = comp.enumOutput;
