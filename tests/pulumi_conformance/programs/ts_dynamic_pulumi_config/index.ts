// A dynamic provider that takes its resource's id from the `pulumi-nodejs:id` config, read from
// the PULUMI_CONFIG environment of the provider process.
import * as pulumi from "@pulumi/pulumi";

class FromEnvironment implements pulumi.dynamic.ResourceProvider {
    async create(_inputs: any): Promise<pulumi.dynamic.CreateResult> {
        const config = JSON.parse(process.env.PULUMI_CONFIG ?? "{}");
        return { id: config["id"], outs: {} };
    }
}

class CustomResource extends pulumi.dynamic.Resource {
    constructor(name: string, opts?: pulumi.ResourceOptions) {
        super(new FromEnvironment(), name, {}, opts, "custom-provider", "CustomResource");
    }
}

export const rid = new CustomResource("resource-name").id;
