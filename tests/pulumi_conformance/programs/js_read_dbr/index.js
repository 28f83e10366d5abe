"use strict";
const { Resource } = require("./resource");

const seen = new Resource("seen", { state: 7 }, { id: "out-there" });
const made = new Resource("made", { state: seen.state.apply(s => s + 1) });
new Resource("alsoSeen", { state: made.state }, { id: "also-out-there" });
