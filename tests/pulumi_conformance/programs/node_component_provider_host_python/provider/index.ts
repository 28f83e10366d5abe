// A component whose schema the Node.js SDK's component provider host infers from these types.

import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

enum MyEnum {
    A = "a",
    B = "b",
}

const MyConstEnum = { C: "c", D: "d" } as const;
type MyConstEnum = typeof MyConstEnum[keyof typeof MyConstEnum];

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
        const doubled = (n: number) => n * 2;
        this.aNumberOutput = pulumi.output(doubled(args.aNumber));
        this.anOptionalStringOutput = pulumi.output(`Hello, ${args.anOptionalString ?? "World"}!`);
        this.aBooleanOutput = pulumi.output(args.aBooleanInput).apply(b => !b);
        this.aComplexTypeOutput = pulumi.output(args.aComplexTypeInput).apply(c => ({
            aNumber: doubled(c.aNumber),
            nestedComplexType: { aNumber: doubled(c.nestedComplexType.aNumber) },
        }));
        this.aResourceOutput = pulumi.output(new random.RandomPet(`${name}-pet`));
        this.aString = "hello";
        this.enumOutput = pulumi.output(args.enumInput).apply((e: MyEnum): MyConstEnum => {
            switch (e) {
                case MyEnum.A:
                    return MyConstEnum.C;
                case MyEnum.B:
                    return MyConstEnum.D;
            }
            throw new Error(`unexpected enum value ${e}`);
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
