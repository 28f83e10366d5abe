// Two closures serialized by the SDK, each then loaded as a module of its own and run in this
// process (then removed): one captures a Config made by the program, the other makes its own.
// Both must see the stack's `value`.
import * as assert from "assert";
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

function freshDir(kind: string): string {
    const dir = path.join(os.tmpdir(), `${kind}-${crypto.randomBytes(4).toString("hex")}`);
    fs.mkdirSync(dir);
    fs.symlinkSync(path.join(process.cwd(), "node_modules"), path.join(dir, "node_modules"));
    return dir;
}

async function main() {
    const config = new pulumi.Config();

    const captured = await pulumi.runtime.serializeFunction(() => {
        assert.strictEqual(config.require("value"), "it works");
        console.log("outside capture works");
    });
    const ownConfig = await pulumi.runtime.serializeFunction(() => {
        const inner = new pulumi.Config();
        assert.strictEqual(inner.require("value"), "it works");
        console.log("inside capture works");
    });

    for (const [kind, fn] of [["outside", captured], ["inside", ownConfig]] as const) {
        const dir = freshDir(kind);
        fs.writeFileSync(path.join(dir, "index.js"), fn.text);
        try {
            require(dir).handler();
        } finally {
            fs.rmSync(dir, { recursive: true });
        }
    }
}

main();
