import * as pulumi from "@pulumi/pulumi";

// A testprovider Random, registered by hand (no generated SDK).
class Random extends pulumi.Resource {
    result!: pulumi.Output<string | undefined>;

    constructor(name: string, length: number, opts?: pulumi.ResourceOptions) {
        super("testprovider:index:Random", name, true, { length }, opts);
    }
}

// An explicit testprovider provider.
class RandomProvider extends pulumi.ProviderResource {
    constructor(name: string, opts?: pulumi.ResourceOptions) {
        super("testprovider", name, {}, opts);
    }
}

// The default provider's plugin comes from this URL.
const byDefault = new Random("default", 10, { pluginDownloadURL: "get.example.test" });
export const defaultProvider = byDefault.result;

// The explicit provider's plugin from another; its resource names none.
const explicit = new RandomProvider("explicit", { pluginDownloadURL: "get.pulumi.test/providers" });
new Random("explicit", 8, { provider: explicit });
