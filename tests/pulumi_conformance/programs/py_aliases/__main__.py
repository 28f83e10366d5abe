from part import Part, under

# 1. rename
Part("my:m:Thing", "before")

# 2. adopt into a component: a top-level part, then the child of a new component (URN alias);
#    a top-level component, then a child (alias: the stack as parent); a component whose
#    child follows its own parent's move
Part("my:m:Thing", "loose")
box = Part("my:m:Box", "box")
Part("my:m:Inner", "floating")
Part("my:m:Nest", "nest-top", children=lambda me: Part("my:m:Inner", "nest-top-kid", under(me)))
Part("my:m:Nest", "nest-in-box", under(box), children=lambda me: Part("my:m:Inner", "nest-in-box-kid", under(me)))

# 3. rename a component: a child named after it follows, another keeps its name
Part("my:m:Shelf", "shelf", children=lambda me: (
    Part("my:m:Thing", "shelf-kid", under(me)),
    Part("my:m:Thing", "steady-kid", under(me)),
))

# 4. rename a component and its child at once
Part("my:m:Crate", "crate", children=lambda me: Part("my:m:Thing", "crate-kid", under(me)))

# 5. retype a component
Part("my:m:OldKind", "retyped", children=lambda me: Part("my:m:Thing", "retyped-kid", under(me)))

# 6. retype a parent and its child, each through many type aliases
Part("my:m:Outer-v3", "outer", children=lambda me: Part(
    "my:m:Mid-v7", "mid", under(me), children=lambda mid: Part("my:m:Thing", "deep", under(mid))))

# 7. adopt a top-level part as a component's child
Part("my:m:Adopter", "adopter")
Part("my:m:Thing", "stray")

# 8. extract a component's child to the top level
Part("my:m:Holder", "holder", children=lambda me: Part("my:m:Thing", "held", under(me)))

# 9. rename a component's child
Part("my:m:Namer", "namer", children=lambda me: Part("my:m:Thing", "first-name", under(me)))

# 10. retype a component's child
Part("my:m:Typer", "typer", children=lambda me: Part("my:m:KidOld", "kid", under(me)))
