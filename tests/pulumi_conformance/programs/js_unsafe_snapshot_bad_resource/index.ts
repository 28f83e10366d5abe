import { Resource } from "./resource";

const base = new Resource("base", { uniqueKey: 1, state: 99 });

for (let i = 0; i < 1000; i++) {
    new Resource(`base-${i}`, { uniqueKey: 100 + i, state: 99 });
}

// Its input fails in the update (not in a preview), after `base` was created.
new Resource("dependent", {
    uniqueKey: base.state.apply(() => {
        if (process.env["PULUMI_NODEJS_DRY_RUN"] !== "true") {
            throw new Error("`base` should be created and `dependent` should not");
        }
        return 1;
    }),
    state: base.state,
});
