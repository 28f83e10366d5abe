import * as pulumi from "@pulumi/pulumi";

// pulumi/pulumi#2741: a first-class provider may take a secret in its configuration, as long
// as the secret's value is a string.
class SecretConfigProvider extends pulumi.ProviderResource {
    constructor(name: string, opts?: pulumi.ResourceOptions) {
        super("pulumi-nodejs", name, { secretProperty: pulumi.secret("only the provider may read this") }, opts);
    }
}

new SecretConfigProvider("p");
