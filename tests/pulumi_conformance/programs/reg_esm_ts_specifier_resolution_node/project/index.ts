import * as fs from "fs";
import { x } from "./other";

// A top-level await: only an ES module may have one.
await new Promise((resolve) => setTimeout(resolve, 2000));

export const res = fs.readFileSync("Pulumi.yaml").toString();
export const otherx = x;
