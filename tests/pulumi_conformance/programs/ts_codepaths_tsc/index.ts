// Compiled into bin/: the code paths are found from there, so the dependency is one level up.
import * as runtime from "@pulumi/pulumi/runtime";

(async () => {
    const paths = [...(await runtime.computeCodePaths()).keys()];
    if (!paths.some((p) => p.includes("../node_modules/semver"))) {
        throw new Error(`no ../node_modules/semver among the code paths: ${paths.join(", ")}`);
    }
})();
