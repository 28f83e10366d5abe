// Components parented as a tree: a has b and c, c has d and e; f has g.
"use strict";
const pulumi = require("@pulumi/pulumi");

class Node extends pulumi.ComponentResource {
    constructor(name, parent) {
        super("conf:index:Node", name, {}, { parent });
        this.registerOutputs({});
    }
}

const a = new Node("a");
new Node("b", a);
const c = new Node("c", a);
new Node("d", c);
new Node("e", c);
const f = new Node("f");
new Node("g", f);
