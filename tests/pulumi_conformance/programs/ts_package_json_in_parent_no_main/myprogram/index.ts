// node_modules sits beside the package.json one directory up; importing from it proves the
// program finds it there.
import { strict as assert } from "assert";
import { version } from "@pulumi/pulumi/version";

assert.ok(version);
