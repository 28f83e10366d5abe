// A dynamic resource with a plain and a secret input, then the same resource looked up by URN
// (the `pulumi:pulumi:getResource` invoke): its outputs come back, the secret one still secret.
import * as pulumi from "@pulumi/pulumi";

const echo: pulumi.dynamic.ResourceProvider = {
    async create(inputs: any) {
        return { id: "0", outs: inputs };
    },
};

class Stored extends pulumi.dynamic.Resource {
    constructor(name: string, props: pulumi.Inputs, opts?: pulumi.CustomResourceOptions) {
        super(echo, name, props, opts);
    }
}

class ByUrn extends pulumi.Resource {
    declare public readonly foo: pulumi.Output<string>;
    declare public readonly bar: pulumi.Output<string>;

    constructor(urn: pulumi.URN) {
        super("unused:unused:unused", "unused", true, { foo: undefined, bar: undefined }, { urn });
    }
}

const a = new Stored("a", { foo: "foo", bar: pulumi.secret("my-$ecret") });

export const foo = a.urn.apply(urn => new ByUrn(urn).foo);
export const secret = a.urn.apply(urn => new ByUrn(urn).bar);
