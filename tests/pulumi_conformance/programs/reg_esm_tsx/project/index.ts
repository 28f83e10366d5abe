import * as fs from "fs";
import { x } from "./other.js";

// Only an ES module may await at its top level.
await new Promise((resolve) => setTimeout(resolve, 2000));

export const res = fs.readFileSync("Pulumi.yaml").toString();
export const otherx = x;

export const something = (arg: string): unknown => arg;

// A type error: tsx strips types without checking them.
export const s: string = something("hello");
