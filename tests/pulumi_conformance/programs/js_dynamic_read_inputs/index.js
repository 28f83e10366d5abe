"use strict";
const pulumi = require("@pulumi/pulumi");

const keeper = {
    async create(props) {
        return { id: "kept-1", outs: { note: props.note } };
    },
    // The read gives inputs back too, so a refresh keeps the inputs diffs compare against.
    async read(id, props) {
        return { id, props, inputs: { note: props.note } };
    },
};

const kept = new pulumi.dynamic.Resource(keeper, "kept", { note: "remember me" });
exports.kept_id = kept.id;
