import * as pulumi from "@pulumi/pulumi";
import * as pathExists from "path-exists";
import * as relative from "./relative";

// Serialized with its code paths: path-exists and ./relative must travel with it.
const provider: pulumi.dynamic.ResourceProvider = {
    async create() {
        return {
            id: `dyn-${Math.ceil(Math.random() * 1000)}`,
            outs: { exists: pathExists.sync("."), magic: relative.fun() },
        };
    },
};

export class MyDynamicProviderResource extends pulumi.dynamic.Resource {
    constructor(name: string, opts?: pulumi.CustomResourceOptions) {
        super(provider, name, {}, opts);
    }
}
