export const picked = "chosen.js, named by Pulumi.yaml";
