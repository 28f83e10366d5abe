// The parent directory's package.json has no `main`, so index.js runs; its `type: module`
// makes this an ES module, which import.meta proves.
import assert from "node:assert";

assert.ok(import.meta.url);
