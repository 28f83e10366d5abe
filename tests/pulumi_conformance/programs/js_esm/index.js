// An ES module (package.json says "type": "module"): `import` syntax and named exports, which the
// SDK turns into stack outputs.
import { readFileSync } from "fs";

export const project = readFileSync("Pulumi.yaml", "utf8");
