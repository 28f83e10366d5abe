"use strict";
const { Part, under } = require("./part");

// 1. rename
new Part("my:m:Thing", "before");

// 2. adopt into a component: a top-level part, then the child of a new component (URN alias);
//    a top-level component, then a child (alias: the stack as parent); a component whose
//    child follows its own parent's move
new Part("my:m:Thing", "loose");
const box = new Part("my:m:Box", "box");
new Part("my:m:Inner", "floating");
new Part("my:m:Nest", "nest-top", {}, (me) => new Part("my:m:Inner", "nest-top-kid", under(me)));
new Part("my:m:Nest", "nest-in-box", under(box), (me) =>
    new Part("my:m:Inner", "nest-in-box-kid", under(me)));

// 3. rename a component: a child named after it follows, another keeps its name
new Part("my:m:Shelf", "shelf", {}, (me) => {
    new Part("my:m:Thing", "shelf-kid", under(me));
    new Part("my:m:Thing", "steady-kid", under(me));
});

// 4. rename a component and its child at once
new Part("my:m:Crate", "crate", {}, (me) => new Part("my:m:Thing", "crate-kid", under(me)));

// 5. retype a component
new Part("my:m:OldKind", "retyped", {}, (me) => new Part("my:m:Thing", "retyped-kid", under(me)));

// 6. retype a parent and its child, each through many type aliases
new Part("my:m:Outer-v3", "outer", {}, (me) =>
    new Part("my:m:Mid-v7", "mid", under(me), (mid) => new Part("my:m:Thing", "deep", under(mid))));

// 7. adopt a top-level part as a component's child
new Part("my:m:Adopter", "adopter");
new Part("my:m:Thing", "stray");

// 8. extract a component's child to the top level
new Part("my:m:Holder", "holder", {}, (me) => new Part("my:m:Thing", "held", under(me)));

// 9. rename a component's child
new Part("my:m:Namer", "namer", {}, (me) => new Part("my:m:Thing", "first-name", under(me)));

// 10. retype a component's child
new Part("my:m:Typer", "typer", {}, (me) => new Part("my:m:KidOld", "kid", under(me)));
