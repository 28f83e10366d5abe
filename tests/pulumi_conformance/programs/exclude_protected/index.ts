import * as pulumi from "@pulumi/pulumi";

class Bucket extends pulumi.ComponentResource {
    constructor(name: string, opts?: pulumi.ComponentResourceOptions) {
        super("my:module:Resource", name, {}, opts);
    }
}

// Seven of these are protected: four by their own option, two by their parent's.
const first = new Bucket("my-bucket", { protect: true });
new Bucket("my-bucket-child", { parent: first, protect: false });
new Bucket("my-bucket-child-protected", { parent: first, protect: true });

const second = new Bucket("my-2bucket", { protect: false });
new Bucket("my-2bucket-child", { parent: second, protect: false });
new Bucket("my-2bucket-protected-child", { parent: second, protect: true });

const provided = new Bucket("provided-bucket", { protect: true });
new Bucket("provided-bucket-child", { parent: provided });
new Bucket("provided-bucket-child-unprotected", { parent: provided, protect: false });
