import pulumi
from pulumi import UNKNOWN, Output
from pulumi.dynamic import CreateResult, Resource, ResourceProvider
from pulumi.runtime import is_dry_run


class Keep(ResourceProvider):
    def create(self, props):
        return CreateResult("kept", props)


class Partial(Resource):
    plain: Output
    nested: Output
    items: Output

    def __init__(self, name, props, opts=None):
        super().__init__(Keep(), name, props, opts)


# Unknown in a preview, known in an update.
later = Output.from_input(UNKNOWN if is_dry_run() else "known now")

p = Partial("partial", {
    "plain": "known",
    "nested": {"fixed": "known", "pending": later},
    "items": ["known", later],
})


async def knowns():
    assert await p.plain.is_known()
    assert await p.nested["fixed"].is_known()
    assert await p.nested["pending"].is_known() != is_dry_run()
    assert await p.items[0].is_known()
    assert await p.items[1].is_known() != is_dry_run()
    print("knowns as expected")
    return "checked"


pulumi.export("knowns", knowns())
