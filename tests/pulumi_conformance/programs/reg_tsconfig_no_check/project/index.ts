import * as pulumi from "@pulumi/pulumi";

// A type error that noCheck lets through.
const a: number = "intentional error";
