from pulumi import ROOT_STACK_RESOURCE, Alias, ResourceOptions, create_urn

from part import Part, under

# 1. rename
Part("my:m:Thing", "after", ResourceOptions(aliases=[Alias(name="before")]))

# 2. adopt into a component
box = Part("my:m:Box", "box", children=lambda me: Part(
    "my:m:Thing", "box-loose", under(me, aliases=[create_urn("loose", "my:m:Thing")])))
Part("my:m:Inner", "floating", under(box, aliases=[Alias(parent=ROOT_STACK_RESOURCE)]))
Part("my:m:Nest", "nest-top", children=lambda me: Part(
    "my:m:Inner", "nest-top-kid", under(me, aliases=[Alias(parent=ROOT_STACK_RESOURCE)])))
Part("my:m:Nest", "nest-in-box", under(box), children=lambda me: Part(
    "my:m:Inner", "nest-in-box-kid", under(me, aliases=[Alias(parent=box)])))

# 3. rename a component (the child named after it is aliased by the SDK)
Part("my:m:Shelf", "bigshelf", ResourceOptions(aliases=[Alias(name="shelf")]), children=lambda me: (
    Part("my:m:Thing", "bigshelf-kid", under(me)),
    Part("my:m:Thing", "steady-kid", under(me)),
))

# 4. rename a component and its child at once
Part("my:m:Crate", "box-crate", ResourceOptions(aliases=[Alias(name="crate")]), children=lambda me: Part(
    "my:m:Thing", "renamed-kid", under(me, aliases=[Alias(name="crate-kid", parent=me)])))

# 5. retype a component
Part("my:other:NewKind", "retyped", ResourceOptions(aliases=[Alias(type_="my:m:OldKind")]),
     children=lambda me: Part("my:m:Thing", "retyped-kid", under(me)))

# 6. retype a parent and its child through many type aliases
Part("my:m:Outer-v10", "outer", ResourceOptions(aliases=[Alias(type_=f"my:m:Outer-v{i}") for i in range(10)]),
     children=lambda me: Part(
         "my:m:Mid-v50", "mid", under(me, aliases=[Alias(type_=f"my:m:Mid-v{i}") for i in range(50)]),
         children=lambda mid: Part("my:m:Thing", "deep", under(mid))))

# 7. adopt a top-level part as a component's child
Part("my:m:Adopter", "adopter", children=lambda me: Part(
    "my:m:Thing", "stray", under(me, aliases=[Alias(parent=ROOT_STACK_RESOURCE)])))

# 8. extract a component's child to the top level
holder = Part("my:m:Holder", "holder")
Part("my:m:Thing", "held", ResourceOptions(aliases=[Alias(parent=holder)]))

# 9. rename a component's child
Part("my:m:Namer", "namer", children=lambda me: Part(
    "my:m:Thing", "second-name", under(me, aliases=[Alias(name="first-name")])))

# 10. retype a component's child
Part("my:m:Typer", "typer", children=lambda me: Part(
    "my:m:KidNew", "kid", under(me, aliases=[Alias(type_="my:m:KidOld")])))
