// The code paths a closure serialization would ship must hold the program's direct dependency
// (transitive ones depend on how the package manager hoisted them, so only `semver` is checked).
import * as runtime from "@pulumi/pulumi/runtime";

(async () => {
    const paths = [...(await runtime.computeCodePaths()).keys()];
    if (!paths.some((p) => p.includes("node_modules/semver"))) {
        throw new Error(`no node_modules/semver among the code paths: ${paths.join(", ")}`);
    }
})();
