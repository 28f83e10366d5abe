// The `nodejs-component-provider` component provider: Pulumi's Node.js run-plugin hosts the
// component this module exports, its schema inferred from these types. MyComponent answers
// outputs computed from its inputs, a random pet child as a resource reference, and a plain
// string.

import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

enum MyEnum {
    A = "a",
    B = "b",
}

const MyConstEnum = { C: "c", D: "d" } as const;
type MyConstEnum = (typeof MyConstEnum)[keyof typeof MyConstEnum];

interface Nested {
    aNumber: number;
}

interface Complex {
    aNumber: number;
    nestedComplexType: Nested;
}

interface MyComponentArgs {
    aNumber: number;
    anOptionalString?: string;
    aBooleanInput: pulumi.Input<boolean>;
    aComplexTypeInput: pulumi.Input<Complex>;
    enumInput: pulumi.Input<MyEnum>;
}

export class MyComponent extends pulumi.ComponentResource {
    aNumberOutput: pulumi.Output<number>;
    anOptionalStringOutput?: pulumi.Output<string>;
    aBooleanOutput: pulumi.Output<boolean>;
    aComplexTypeOutput: pulumi.Output<Complex>;
    aResourceOutput: pulumi.Output<random.RandomPet>;
    aString: string;
    enumOutput: pulumi.Output<MyConstEnum>;

    constructor(name: string, args: MyComponentArgs, opts?: pulumi.ComponentResourceOptions) {
        super("nodejs-component-provider:index:MyComponent", name, args, opts);
        this.aNumberOutput = pulumi.output(args.aNumber * 2);
        this.anOptionalStringOutput = pulumi.output(`Hello, ${args.anOptionalString ?? "World"}!`);
        this.aBooleanOutput = pulumi.output(args.aBooleanInput).apply((b) => !b);
        this.aComplexTypeOutput = pulumi.output(args.aComplexTypeInput).apply((c) => ({
            aNumber: c.aNumber * 2,
            nestedComplexType: { aNumber: c.nestedComplexType.aNumber * 2 },
        }));
        this.aResourceOutput = pulumi.output(new random.RandomPet(`${name}-pet`, {}, { parent: this }));
        this.aString = "hello";
        this.enumOutput = pulumi.output(args.enumInput).apply((e: MyEnum) => {
            switch (e) {
                case MyEnum.A:
                    return MyConstEnum.C;
                case MyEnum.B:
                    return MyConstEnum.D;
            }
            throw new Error(`not an enum value: ${e}`);
        });
        this.registerOutputs({
            aNumberOutput: this.aNumberOutput,
            anOptionalStringOutput: this.anOptionalStringOutput,
            aBooleanOutput: this.aBooleanOutput,
            aComplexTypeOutput: this.aComplexTypeOutput,
            aResourceOutput: this.aResourceOutput,
            aString: this.aString,
        });
    }
}
