// A Container component whose output is a reference to a Child component. Read back by URN, the
// container's `child` is rehydrated through the registered resource module, with the child's own
// URN and message.
import * as assert from "assert";
import * as pulumi from "@pulumi/pulumi";

class Child extends pulumi.ComponentResource {
    declare public readonly message: pulumi.Output<string>;

    constructor(name: string, message?: string, opts?: pulumi.ResourceOptions) {
        super("test:index:Child", name, { message }, opts);
        if (!opts?.urn) {
            this.registerOutputs({ message });
        }
    }
}

class Container extends pulumi.ComponentResource {
    declare public readonly child: pulumi.Output<Child>;

    constructor(name: string, child?: Child, opts?: pulumi.ResourceOptions) {
        super("test:index:Container", name, { child }, opts);
        if (!opts?.urn) {
            this.registerOutputs({ child });
        }
    }
}

pulumi.runtime.registerResourceModule("test", "index", {
    version: "0.0.1",
    construct: (name: string, type: string, urn: string) => {
        if (type !== "test:index:Child") {
            throw new Error(`unknown resource type: ${type}`);
        }
        return new Child(name, undefined, { urn });
    },
});

const child = new Child("mychild", "hello world!");
const container = new Container("mycontainer", child);

// The container's outputs are registered asynchronously: read it back until its child shows,
// for at most five seconds (Pulumi's program does the same, pulumi/pulumi#16896).
async function childRegistered(): Promise<void> {
    const deadline = Date.now() + 5000;
    for (;;) {
        const seen = await new Promise<boolean>(resolve => {
            container.urn.apply(urn => {
                new Container("mycontainer", undefined, { urn }).child.apply(c => resolve(c !== undefined));
            });
        });
        if (seen) {
            return;
        }
        if (Date.now() > deadline) {
            throw new Error("resource outputs not registered correctly");
        }
    }
}

childRegistered().then(() => {
    pulumi.all([child.urn, container.urn]).apply(([childUrn, urn]) => {
        const readBack = new Container("mycontainer", undefined, { urn });
        return pulumi
            .all([readBack.child.apply(c => c.urn), readBack.child.apply(c => c.message)])
            .apply(([actualUrn, message]) => {
                assert.strictEqual(actualUrn, childUrn);
                assert.strictEqual(message, "hello world!");
                return actualUrn;
            });
    });
});
