"""Resource hooks around create and delete, a before-create hook that refuses, and an error
hook that retries a sim resource whose create fails once. Every hook appends a line to
`hooks.log` in the project directory, which the test reads."""

import os

import pulumi
from pulumi_random import RandomPet

LOG = os.path.join(os.getcwd(), "hooks.log")


def record(line):
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def before_create(args: pulumi.ResourceHookArgs):
    record(f"before_create {args.name} length={args.new_inputs['length']} id={args.id!r}")


def after_create(args: pulumi.ResourceHookArgs):
    record(f"after_create {args.name} id={args.id} length={args.new_outputs['length']}")


def before_delete(args: pulumi.ResourceHookArgs):
    record(f"before_delete {args.name} id={args.id} length={args.old_inputs['length']}")


def after_delete(args: pulumi.ResourceHookArgs):
    record(f"after_delete {args.name} id={args.id}")


def refuse(args: pulumi.ResourceHookArgs):
    raise Exception(f"{args.name} may not be created today")


def retry_create(args: pulumi.ErrorHookArgs) -> bool:
    record(f"on_error {args.name} {args.failed_operation} errors={len(args.errors)}")
    return len(args.errors) < 3


hooks = pulumi.ResourceHookBinding(
    before_create=[pulumi.ResourceHook("before-create", before_create)],
    after_create=[pulumi.ResourceHook("after-create", after_create)],
    before_delete=[pulumi.ResourceHook("before-delete", before_delete)],
    after_delete=[pulumi.ResourceHook("after-delete", after_delete)],
)
refusing = pulumi.ResourceHook("refuse", refuse)
retrying = pulumi.ErrorHook("retry-create", retry_create)

config = pulumi.Config()
if not config.get_bool("dropPet"):
    pet = RandomPet("pet", length=2, opts=pulumi.ResourceOptions(hooks=hooks))
    pulumi.export("pet", pet.id)

if config.get_bool("refuse"):
    RandomPet(
        "refused",
        length=1,
        opts=pulumi.ResourceOptions(
            hooks=pulumi.ResourceHookBinding(before_create=[refusing])
        ),
    )

flaky = pulumi.CustomResource(
    "sim:index:Resource",
    "flaky",
    {"failOn": ["create"], "failTimes": config.get_int("failTimes") or 1},
    opts=pulumi.ResourceOptions(hooks=pulumi.ResourceHookBinding(on_error=[retrying])),
)
