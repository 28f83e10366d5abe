"""A dynamic provider defined in the program: each box is a file in the configured directory,
and every operation is appended to `ops.log` there so tests can see what ran, in which order."""

import os
import uuid

import pulumi
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    Resource,
    ResourceProvider,
    UpdateResult,
)

REPLACING = ("gen", "upstream")


def record(directory, line):
    with open(os.path.join(directory, "ops.log"), "a") as log:
        log.write(line + "\n")


class BoxProvider(ResourceProvider):
    """Writes `content` to `<dir>/<id>`; `gen` and `upstream` changes replace the box."""

    def check(self, olds, news):
        # Under delete-before-replace, a box whose upstream changed was deleted with it and is
        # created afresh: its old inputs describe nothing, and Pulumi's engine passes none
        # (as in Pulumi's recreate_resource_check test).
        stale = olds.get("upstream") and olds.get("upstream") != news.get("upstream")
        if news.get("dbr") and stale:
            failure = CheckFailure("upstream", "engine compared the inputs of a recreated box")
            return CheckResult(news, [failure])
        return CheckResult(news, [])

    def create(self, props):
        box_id = "%s-%s-%s" % (props["name"], props["gen"], uuid.uuid4().hex[:6])
        with open(os.path.join(props["dir"], box_id), "w") as f:
            f.write(props["content"])
        record(props["dir"], "create " + props["name"])
        return CreateResult(box_id, {**props, "stamp": "%s@%s" % (props["name"], props["gen"])})

    def diff(self, _id, olds, news):
        replaces = [k for k in REPLACING if olds.get(k) != news.get(k)]
        changed = bool(replaces) or olds.get("content") != news.get("content")
        return DiffResult(
            changes=changed, replaces=replaces, delete_before_replace=bool(news.get("dbr"))
        )

    def update(self, box_id, olds, news):
        if news["content"] == "explode":
            raise Exception("box %s refused to explode" % news["name"])
        with open(os.path.join(news["dir"], box_id), "w") as f:
            f.write(news["content"])
        record(news["dir"], "update " + news["name"])
        return UpdateResult({**news, "stamp": olds["stamp"]})

    def delete(self, box_id, props):
        os.remove(os.path.join(props["dir"], box_id))
        record(props["dir"], "delete " + props["name"])


class Box(Resource):
    stamp: pulumi.Output[str]

    def __init__(self, name, content, gen, upstream="", dbr=False, opts=None):
        config = pulumi.Config()
        super().__init__(
            BoxProvider(),
            name,
            {
                "dir": config.require("dir"),
                "name": name,
                "content": content,
                "gen": gen,
                "upstream": upstream,
                "dbr": dbr,
                "stamp": None,
            },
            opts,
        )


config = pulumi.Config()
dbr = config.get_bool("dbr") or False
root = Box("root", config.get("content") or "v1", config.get("gen") or "1", dbr=dbr)
leaf = Box("leaf", "leaf content", "1", upstream=root.stamp, dbr=dbr)
pulumi.export("rootStamp", root.stamp)
pulumi.export("leafStamp", leaf.stamp)
