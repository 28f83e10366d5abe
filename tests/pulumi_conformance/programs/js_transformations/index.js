"use strict";
// The legacy `transformations` option: a resource's own, a component's reaching its children,
// two stacked under the stack's (which runs last and wins), and one making a child wait for
// its sibling. Sim resources stand in for the testprovider's Random.
const pulumi = require("@pulumi/pulumi");

const RAND = "sim:index:Resource";

class Random extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super(RAND, name, { prefix: undefined, result: undefined, ...args }, opts);
    }
}

class MyComponent extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("my:component:MyComponent", name, {}, opts);
        this.child = new Random(`${name}-child`, { length: 5 }, {
            parent: this,
            additionalSecretOutputs: ["length"],
        });
        this.registerOutputs({});
    }
}

class MyOtherComponent extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("my:component:MyOtherComponent", name, {}, opts);
        this.child1 = new Random(`${name}-child1`, { length: 5 }, { parent: this });
        this.child2 = new Random(`${name}-child2`, { length: 5 }, { parent: this });
        this.registerOutputs({});
    }
}

const secretResult = (opts) => pulumi.mergeOptions(opts, { additionalSecretOutputs: ["result"] });

new Random("res1", { length: 5 }, {
    transformations: [({ props, opts }) => ({ props, opts: secretResult(opts) })],
});

new MyComponent("res2", {
    transformations: [
        ({ type, props, opts }) =>
            type === RAND
                ? { props: { prefix: "newDefault", ...props }, opts: secretResult(opts) }
                : undefined,
    ],
});

pulumi.runtime.registerStackTransformation(({ type, props, opts }) =>
    type === RAND
        ? { props: { ...props, prefix: "stackDefault" }, opts: secretResult(opts) }
        : undefined,
);

new Random("res3", { length: 5 });

const prefixed = (prefix) => ({ type, props, opts }) =>
    type === RAND ? { props: { ...props, prefix }, opts } : undefined;

new MyComponent("res4", { transformations: [prefixed("default1"), prefixed("default2")] });

function child1WaitsForChild2() {
    let found;
    const child2 = new Promise((resolve) => (found = resolve));
    return ({ name, props, opts, resource }) => {
        if (name.endsWith("-child2")) {
            found(resource);
            return undefined;
        }
        if (name.endsWith("-child1")) {
            const prefix = pulumi.output(props.length).apply(async (length) => {
                if (length !== 5) {
                    throw new Error(`unexpected length ${length}`);
                }
                return (await child2).result;
            });
            return { props: { ...props, prefix }, opts };
        }
        return undefined;
    };
}

new MyOtherComponent("res5", { transformations: [child1WaitsForChild2()] });
