// An advisory resource policy written with @pulumi/policy from npm, naming the stack the
// pack's environment says it analyzes, and a remediation that tags networks with an owner.
const { PolicyPack } = require("@pulumi/policy");
const pulumi = require("@pulumi/pulumi");

new PolicyPack("node-pack", {
    policies: [
        {
            name: "owner-tag",
            description: "Networks name their owner",
            enforcementLevel: "remediate",
            remediateResource: (args) => {
                if (args.type === "sim:index:Network" && args.props.owner === undefined) {
                    return { ...args.props, owner: "platform" };
                }
                return undefined;
            },
        },
        {
            name: "db-engine",
            description: "Databases name their engine",
            enforcementLevel: "advisory",
            validateResource: (args, reportViolation) => {
                if (args.type === "sim:index:Database") {
                    reportViolation(`engine ${args.props.engine} on ${pulumi.getStack()}`);
                }
            },
        },
    ],
});
