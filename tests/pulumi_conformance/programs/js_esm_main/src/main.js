// The entry point package.json names; it awaits at the top level before exporting.
import { readFileSync } from "fs";

const delayed = await new Promise((resolve) => setTimeout(() => resolve("after a wait"), 20));

export const project = readFileSync("Pulumi.yaml", "utf8");
export const waited = delayed;
