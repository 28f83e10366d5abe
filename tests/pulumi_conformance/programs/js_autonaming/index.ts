// Two self-naming resources, one left to autonaming and one named by the program, and a
// component whose type has no module part (`sim:index:Named` stands in for Pulumi's
// testprovider `Named`).
import * as pulumi from "@pulumi/pulumi";

class Named extends pulumi.CustomResource {
    declare public readonly name: pulumi.Output<string>;
    constructor(name: string, physicalName?: string) {
        super("sim:index:Named", name, { name: physicalName });
    }
}

class Group extends pulumi.ComponentResource {
    constructor(name: string) {
        super("sim:my-component", name);
    }
}

export const autoName = new Named("test1").name;
export const explicitName = new Named("test2", "explicit-name").name;
export const componentUrn = new Group("test3").urn;
