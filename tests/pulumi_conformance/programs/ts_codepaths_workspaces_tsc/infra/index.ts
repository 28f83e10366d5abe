import * as runtime from "@pulumi/pulumi/runtime";
import * as semver from "semver";
import * as myRandom from "my-random";
import * as myDynamicProvider from "my-dynamic-provider";

const random = new myRandom.MyRandom("plop", {});
export const id = random.randomID;
export const version = semver.parse("1.2.3");

new myDynamicProvider.MyDynamicProviderResource("prov", {});

// The registry dependency and both workspace packages must be among the code paths.
(async () => {
    const paths = [...((await runtime.computeCodePaths()) as Map<string, string>).keys()];
    for (const wanted of ["node_modules/semver", "node_modules/my-random", "node_modules/my-dynamic-provider"]) {
        if (!paths.some((p) => p.includes(wanted))) {
            throw new Error(`no code path matches ${wanted}: ${paths}`);
        }
    }
})();
