import * as pulumi from "@pulumi/pulumi";

// A type error that swc, transpiling only, lets through.
const a: number = "intentional error";
