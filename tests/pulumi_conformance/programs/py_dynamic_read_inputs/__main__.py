import pulumi
from pulumi.dynamic import CreateResult, ReadResult, Resource, ResourceProvider


class Keeper(ResourceProvider):
    def create(self, props):
        return CreateResult(id_="kept-1", outs={"note": props["note"]})

    def read(self, id_, props):
        # The read gives inputs back too, so a refresh keeps the inputs diffs compare against.
        return ReadResult(id_=id_, outs=props, inputs={"note": props["note"]})


class Kept(Resource):
    def __init__(self, name, note, opts=None):
        super().__init__(Keeper(), name, {"note": note}, opts)


pulumi.export("kept_id", Kept("kept", note="remember me").id)
