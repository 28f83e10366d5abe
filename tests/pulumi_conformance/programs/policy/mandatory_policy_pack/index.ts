import { PolicyPack } from "@pulumi/policy";

new PolicyPack("typescript", {
    policies: [
        {
            name: "mandatory-policy-pack",
            description: "Failing mandatory policy pack for testing",
            enforcementLevel: "mandatory",
            validateStack: (_stack, reportViolation) => {
                reportViolation("mandatory-policy-pack");
            },
        },
    ],
});
