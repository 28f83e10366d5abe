import { readFileSync } from "fs";
import { answer } from "./answer.js"; // the compiled file's name, as ES modules need

await new Promise((resolve) => setTimeout(resolve, 20));

export const project = readFileSync("Pulumi.yaml", "utf8");
export const fromOther = answer;
