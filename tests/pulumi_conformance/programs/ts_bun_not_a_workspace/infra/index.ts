import * as pulumi from "@pulumi/pulumi";

export const project = pulumi.getProject();
