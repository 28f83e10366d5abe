"use strict";
const { Resource } = require("./resource");

// The second read is dropped.
const seen = new Resource("seen", { state: 7 }, { id: "out-there" });
new Resource("made", { state: seen.state.apply(s => s + 2) });
