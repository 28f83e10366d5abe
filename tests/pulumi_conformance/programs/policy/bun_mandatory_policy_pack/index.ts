import { PolicyPack } from "@pulumi/policy";
import type { ReportViolation, StackValidationArgs } from "@pulumi/policy";

// Typed TypeScript that bun compiles itself: no ts-node is involved.
const failEveryStack = (_stack: StackValidationArgs, reportViolation: ReportViolation): void => {
    reportViolation("mandatory-policy-pack");
};

new PolicyPack("bun", {
    policies: [
        {
            name: "mandatory-policy-pack",
            description: "Failing mandatory policy pack for testing",
            enforcementLevel: "mandatory",
            validateStack: failEveryStack,
        },
    ],
});
