// computeCodePaths must walk up to the parent directory's package.json and find its direct
// dependency there.
import * as runtime from "@pulumi/pulumi/runtime";

(async () => {
    const paths = [...((await runtime.computeCodePaths()) as Map<string, string>).keys()];
    for (const wanted of ["node_modules/semver"]) {
        if (!paths.some((p) => p.includes(wanted))) {
            throw new Error(`no code path matches ${wanted}: ${paths}`);
        }
    }
})();
