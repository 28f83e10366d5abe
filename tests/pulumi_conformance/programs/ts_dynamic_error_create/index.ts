// A dynamic resource whose provider fails to create it: the update fails on that create.
import * as pulumi from "@pulumi/pulumi";

class Failing implements pulumi.dynamic.ResourceProvider {
    async create(_inputs: any): Promise<pulumi.dynamic.CreateResult> {
        throw new Error("boom!");
    }
}

class CustomResource extends pulumi.dynamic.Resource {
    constructor(name: string, opts?: pulumi.ResourceOptions) {
        super(new Failing(), name, {}, opts, "custom-provider", "CustomResource");
    }
}

export const urn = new CustomResource("resource-name").urn;
