// Constructs the TypeScript provider's MyComponent through `@pulumi/nodejs-component-provider`,
// the SDK that `package add ../provider` generated; `@pulumi/random` is imported so the
// component's RandomPet reference can be rebuilt as that class (pulumi/pulumi#20252).

import * as pulumi from "@pulumi/pulumi";
import * as provider from "@pulumi/nodejs-component-provider";
import * as random from "@pulumi/random";
import * as assert from "node:assert";

assert(random);

const parent = new pulumi.ComponentResource("ParentComponent", "parent");

const comp = new provider.MyComponent("comp", {
    aNumber: 123,
    anOptionalString: "Bonnie",
    aBooleanInput: pulumi.Output.create(true),
    aComplexTypeInput: {
        aNumber: 7,
        nestedComplexType: { aNumber: 9 },
    },
    enumInput: provider.MyEnum.B,
}, { parent });

export const urn = comp.urn;
export const aNumberOutput = comp.aNumberOutput;
export const anOptionalStringOutput = comp.anOptionalStringOutput;
export const aBooleanOutput = comp.aBooleanOutput;
export const aComplexTypeOutput = comp.aComplexTypeOutput;
export const aResourceOutputUrn = comp.aResourceOutput.urn;
export const aString = comp.aString;
export const enumOutput = comp.enumOutput;
