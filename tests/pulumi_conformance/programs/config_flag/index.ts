import * as pulumi from "@pulumi/pulumi";

// Prints the required `example` key, which the tests give with `--config` only.
const example = new pulumi.Config().require("example");
console.log(example);
