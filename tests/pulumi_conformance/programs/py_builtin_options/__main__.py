"""Options of the built-in `command` and `random` providers through the real Python SDKs of
pulumi-command and pulumi-random: a command with its directory, environment, stdin,
interpreter, triggers and asset/archive globs, the `run` function, and random values shaped
by their options, one of them kept by `keepers`, and a string imported by its value."""

import os

import pulumi
import pulumi_command as command
import pulumi_random as random

config = pulumi.Config()
keeper = config.get("keeper") or "one"
os.makedirs("work", exist_ok=True)

build = command.local.Command(
    "build",
    create="mkdir -p out/skip && printf \"$GREETING\" > out/a.txt && cat > out/b.txt "
    "&& echo x > out/skip/c.txt && echo x > out/d.log && cat out/b.txt",
    dir="work",
    environment={"GREETING": "hello"},
    stdin="from stdin",
    interpreter=["/bin/bash", "-c"],
    triggers=[keeper],
    asset_paths=["out/**", "!**.log", "!out/skip/*"],
    archive_paths=["out/*.txt"],
)

ran = command.local.run_output(command="echo ran in $PWD", dir="work")

token = random.RandomString(
    "token", length=12, special=True, override_special="#", min_special=2, min_numeric=3
)
tag = random.RandomId("tag", byte_length=4, prefix="t-", keepers={"keeper": keeper})
pet = random.RandomPet("pet", length=3, separator="_", prefix="pre")
number = random.RandomInteger("number", min=1, max=1000, seed="fixed")
shuffled = random.RandomShuffle("shuffled", inputs=["a", "b", "c", "d"], result_count=2)
ordered = random.RandomUuid7("ordered")
adopted = random.RandomString(
    "adopted", length=13, opts=pulumi.ResourceOptions(import_="myspecialdata")
)

pulumi.export("stdout", build.stdout)
pulumi.export("assets", build.assets.apply(lambda a: sorted(a.keys()) if a else []))
pulumi.export("archived", build.archive.apply(lambda a: sorted(a.assets.keys()) if a else []))
pulumi.export("ran", ran.stdout)
pulumi.export("token", token.result)
pulumi.export("tagHex", tag.hex)
pulumi.export("pet", pet.id)
pulumi.export("number", number.result)
pulumi.export("shuffled", shuffled.results)
pulumi.export("ordered", ordered.result)
pulumi.export("adopted", adopted.result)
