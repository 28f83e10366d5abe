// package.json lists no dependencies, so there is nothing to ship.
import * as runtime from "@pulumi/pulumi/runtime";

(async () => {
    const paths = JSON.stringify([...(await runtime.computeCodePaths()).keys()]);
    if (paths !== "[]") {
        throw new Error(`expected no code paths, got ${paths}`);
    }
})();
