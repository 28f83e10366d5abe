"use strict";
// Every part of the first program moved, each aliased so that nothing changes.
const pulumi = require("@pulumi/pulumi");
const { Part, under } = require("./part");

const stack = pulumi.rootStackResource;
const range = (n) => [...Array(n).keys()];

// 1. rename
new Part("my:m:Thing", "after", { aliases: [{ name: "before" }] });

// 2. adopt into a component
const box = new Part("my:m:Box", "box", {}, (me) =>
    new Part("my:m:Thing", "box-loose", under(me, {
        aliases: [pulumi.createUrn("loose", "my:m:Thing")],
    })));
new Part("my:m:Inner", "floating", under(box, { aliases: [{ parent: stack }] }));
new Part("my:m:Nest", "nest-top", {}, (me) =>
    new Part("my:m:Inner", "nest-top-kid", under(me, { aliases: [{ parent: stack }] })));
new Part("my:m:Nest", "nest-in-box", under(box), (me) =>
    new Part("my:m:Inner", "nest-in-box-kid", under(me, { aliases: [{ parent: box }] })));

// 3. rename a component (the child named after it is aliased by the SDK)
new Part("my:m:Shelf", "bigshelf", { aliases: [{ name: "shelf" }] }, (me) => {
    new Part("my:m:Thing", "bigshelf-kid", under(me));
    new Part("my:m:Thing", "steady-kid", under(me));
});

// 4. rename a component and its child at once
new Part("my:m:Crate", "box-crate", { aliases: [{ name: "crate" }] }, (me) =>
    new Part("my:m:Thing", "renamed-kid", under(me, { aliases: [{ name: "crate-kid", parent: me }] })));

// 5. retype a component
new Part("my:other:NewKind", "retyped", { aliases: [{ type: "my:m:OldKind" }] }, (me) =>
    new Part("my:m:Thing", "retyped-kid", under(me)));

// 6. retype a parent and its child through many type aliases
new Part("my:m:Outer-v10", "outer", { aliases: range(10).map((i) => ({ type: `my:m:Outer-v${i}` })) },
    (me) => new Part("my:m:Mid-v50", "mid",
        under(me, { aliases: range(50).map((i) => ({ type: `my:m:Mid-v${i}` })) }),
        (mid) => new Part("my:m:Thing", "deep", under(mid))));

// 7. adopt a top-level part as a component's child
new Part("my:m:Adopter", "adopter", {}, (me) =>
    new Part("my:m:Thing", "stray", under(me, { aliases: [{ parent: stack }] })));

// 8. extract a component's child to the top level
const holder = new Part("my:m:Holder", "holder");
new Part("my:m:Thing", "held", { aliases: [{ parent: holder }] });

// 9. rename a component's child
new Part("my:m:Namer", "namer", {}, (me) =>
    new Part("my:m:Thing", "second-name", under(me, { aliases: [{ name: "first-name" }] })));

// 10. retype a component's child
new Part("my:m:Typer", "typer", {}, (me) =>
    new Part("my:m:KidNew", "kid", under(me, { aliases: [{ type: "my:m:KidOld" }] })));
