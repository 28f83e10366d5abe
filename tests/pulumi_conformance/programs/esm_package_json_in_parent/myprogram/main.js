// Runs only when the parent directory's package.json is read: it names this file and makes it
// an ES module (import.meta exists in ES modules alone).
import assert from "node:assert";

assert.ok(import.meta.url);
