import { PolicyPack } from "@pulumi/policy";

new PolicyPack("typescript", {
    policies: [
        {
            name: "advisory-policy-pack",
            description: "Failing advisory policy pack for testing",
            enforcementLevel: "advisory",
            validateStack: (_stack, reportViolation) => {
                reportViolation("foobar");
            },
        },
    ],
});
