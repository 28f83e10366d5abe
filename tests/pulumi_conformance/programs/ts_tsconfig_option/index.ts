// Compiled for `module: esnext` (tsconfig.json) this import and export would not run under
// CommonJS; the tsconfig Pulumi.yaml names (chosen.json) compiles it for CommonJS.
import * as pulumi from "@pulumi/pulumi";

export const stackName = pulumi.getStack();
