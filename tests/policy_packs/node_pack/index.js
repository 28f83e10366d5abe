// An advisory resource policy written with @pulumi/policy from npm; it names the stack the
// pack's environment says it analyzes.
const { PolicyPack } = require("@pulumi/policy");
const pulumi = require("@pulumi/pulumi");

new PolicyPack("node-pack", {
    policies: [
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
