"""Stack, resource and invoke transforms: every random resource is tagged through its keepers,
`db` is renamed with the alias added by a transform, a component's transform reaches its
child, and an invoke transform rewrites the command `local.run` runs."""

import pulumi
import pulumi_command as command
from pulumi_random import RandomPet, RandomString

config = pulumi.Config()
renamed = config.get_bool("renamed") or False
fail = config.get_bool("fail") or False


def tag(args: pulumi.ResourceTransformArgs):
    if not args.type_.startswith("random:"):
        return None
    keepers = dict(args.props.get("keepers") or {})
    keepers["owner"] = "platform"
    keepers["order"] = keepers.get("order", "") + ">stack"
    return pulumi.ResourceTransformResult({**args.props, "keepers": keepers}, args.opts)


def keep_db_identity(args: pulumi.ResourceTransformArgs):
    if args.name != "db-renamed":
        return None
    opts = pulumi.ResourceOptions.merge(
        args.opts, pulumi.ResourceOptions(aliases=[pulumi.Alias(name="db")], protect=False)
    )
    return pulumi.ResourceTransformResult(args.props, opts)


def refuse(args: pulumi.ResourceTransformArgs):
    if args.name == "late":
        raise ValueError("late resources are not allowed here")
    return None


def rewrite_command(args: pulumi.InvokeTransformArgs):
    if args.token != "command:local:run":
        return None
    return pulumi.InvokeTransformResult({**args.args, "command": "echo transformed"}, args.opts)


pulumi.runtime.register_stack_transform(tag)
pulumi.runtime.register_stack_transform(keep_db_identity)
pulumi.runtime.register_stack_transform(refuse)
pulumi.runtime.register_invoke_transform(rewrite_command)


def lengthen(args: pulumi.ResourceTransformArgs):
    if args.type_ != "random:index/randomString:RandomString":
        return None
    keepers = dict(args.props.get("keepers") or {})
    keepers["order"] = keepers.get("order", "") + ">component"
    return pulumi.ResourceTransformResult(
        {**args.props, "length": 12, "keepers": keepers}, args.opts
    )


class Box(pulumi.ComponentResource):
    def __init__(self, name, opts=None):
        super().__init__("test:index:Box", name, None, opts)
        self.inner = RandomString(
            f"{name}-inner", length=4, special=False, opts=pulumi.ResourceOptions(parent=self)
        )
        self.register_outputs({})


box = Box("box", opts=pulumi.ResourceOptions(transforms=[lengthen]))
db = RandomPet("db-renamed" if renamed else "db", length=2)
ran = command.local.run(command="echo original")

if fail:
    RandomPet("late", length=1)

pulumi.export("innerLength", box.inner.length)
pulumi.export("innerResult", box.inner.result)
pulumi.export("dbId", db.id)
pulumi.export("dbKeepers", db.keepers)
pulumi.export("ran", ran.stdout)
