import * as pulumi from "@pulumi/pulumi";
import * as runtime from "@pulumi/pulumi/runtime";

// The code paths are package.json's dependencies with its optional ones merged in (not its
// peer ones) and what they depend on in turn, although "0.1" is no valid version.
(async () => {
    new pulumi.Config();
    const paths = [...(await runtime.computeCodePaths()).keys()].sort();
    const expected = ["node_modules/@types/node", "node_modules/typescript", "node_modules/undici-types"];
    if (JSON.stringify(paths) !== JSON.stringify(expected)) {
        throw new Error(`code paths ${JSON.stringify(paths)}, expected ${JSON.stringify(expected)}`);
    }
})();
