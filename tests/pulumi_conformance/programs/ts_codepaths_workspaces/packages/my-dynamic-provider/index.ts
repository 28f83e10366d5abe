import * as pulumi from "@pulumi/pulumi";
import * as isNumber from "is-number";
import * as relative from "./relative";

// Serialized with its code paths: is-number and ./relative must travel with it.
const provider: pulumi.dynamic.ResourceProvider = {
    async create() {
        return {
            id: `dyn-${Math.ceil(Math.random() * 1000)}`,
            outs: { isNumber: isNumber(42), magic: relative.fun() },
        };
    },
};

export class MyDynamicProviderResource extends pulumi.dynamic.Resource {
    constructor(name: string, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, {}, opts);
    }
}
