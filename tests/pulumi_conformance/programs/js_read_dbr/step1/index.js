"use strict";
const { Resource } = require("./resource");

// `made` changes state: replaced delete-before-replace, and the read depending on it with it.
const seen = new Resource("seen", { state: 7 }, { id: "out-there" });
const made = new Resource("made", { state: seen.state.apply(s => s + 2) });
new Resource("alsoSeen", { state: made.state }, { id: "also-out-there" });
