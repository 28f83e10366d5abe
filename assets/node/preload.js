// Loaded by stepdeck (`node --require`) before the Node SDK's program runner.
//
// The SDK reports an uncaught error with `util.inspect(err, { colors: true })`. Node 20.20's
// colored error formatting never ends on a stack line naming a file directly under
// `node_modules/` or `node_modules/@scope/` (nodejs/node#64011), and the SDK's own source maps
// produce such lines (`.../node_modules/@pulumi/resource.ts`): the string grows until the heap
// or V8's length limit stops it, tens of seconds later, and the SDK then falls back to the
// uncolored text. For those errors this asks for the uncolored text at once.
"use strict";

const util = require("util");

const isSeparator = (c) => c === "/" || c === "\\";

// Whether Node's highlighting of module names would find no end to the name on this line.
function endlessModuleName(line) {
    let from = 0;
    for (;;) {
        const at = line.indexOf("node_modules", from);
        if (at === -1) {
            return false;
        }
        from = at + 1;
        const separator = line[at - 1];
        if (!isSeparator(separator) || !isSeparator(line[at + 12])) {
            continue;
        }
        const start = at + 13;
        let end = line.indexOf(separator, start);
        if (end !== -1 && line[start] === "@") {
            end = line.indexOf(separator, end + 1);
        }
        if (end === -1) {
            return true;
        }
    }
}

function colorsWouldLoop(value, colors) {
    if (!colors || value === null || typeof value !== "object") {
        return false;
    }
    const stack = value.stack;
    return typeof stack === "string" && stack.split("\n").some(endlessModuleName);
}

util.inspect = new Proxy(util.inspect, {
    apply(inspect, self, args) {
        const [value, options] = args;
        const optionsObject = options !== null && typeof options === "object";
        if (args.length <= 2 && (optionsObject || options === undefined)) {
            const colors =
                optionsObject && "colors" in options ? options.colors : inspect.defaultOptions.colors;
            if (colorsWouldLoop(value, colors)) {
                return Reflect.apply(inspect, self, [value, { ...options, colors: false }]);
            }
        }
        return Reflect.apply(inspect, self, args);
    },
});
