import * as fs from "fs";
import { x } from "./other.js";

// Only an ES module may await at its top level.
await new Promise((resolve) => setTimeout(resolve, 2000));

// A template literal type needs TypeScript 4.1 or later: the project's compiler, not the
// SDK's vendored 3.8.
type EventName<T extends string> = `on${Capitalize<T>}`;

export const res = fs.readFileSync("Pulumi.yaml").toString();
export const otherx = x;
