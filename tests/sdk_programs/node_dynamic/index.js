// A dynamic provider defined in the program: each note is a file in the configured directory.
"use strict";
const pulumi = require("@pulumi/pulumi");

const noteProvider = {
    async create(inputs) {
        const fs = require("fs");
        const path = require("path");
        const id = `${inputs.name}-${Date.now().toString(36)}`;
        fs.writeFileSync(path.join(inputs.dir, id), inputs.text);
        return { id, outs: { ...inputs, length: inputs.text.length } };
    },
    async delete(id, props) {
        const fs = require("fs");
        const path = require("path");
        fs.unlinkSync(path.join(props.dir, id));
    },
};

class Note extends pulumi.dynamic.Resource {
    constructor(name, text, opts) {
        const dir = new pulumi.Config().require("dir");
        super(noteProvider, name, { dir, name, text, length: undefined }, opts);
    }
}

const note = new Note("note", "hello from node");
exports.length = note.length;
