"""Pulumi's Python Automation API (the registry's `pulumi.automation`) driving stepdeck as
`pulumi`: the workspace, config and stack commands, against a local YAML project.

Run by `tests/cli_e2e.rs` (`the_python_automation_api_drives_workspace_and_stack_commands`)
with `pulumi` on PATH being stepdeck, `PULUMI_CONFIG_PASSPHRASE` and the backend in the
environment. Usage: python workspace.py WORK_DIR. Every check raises on failure.
"""

import json
import os
import sys

from pulumi.automation import (
    CommandError,
    ConfigValue,
    LocalWorkspace,
    StackAlreadyExistsError,
    StackNotFoundError,
    create_or_select_stack,
    create_stack,
    select_stack,
)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main(work_dir):
    name = "organization/automation/dev"
    stack = create_or_select_stack(stack_name=name, work_dir=work_dir)
    ws = stack.workspace
    version = ws.pulumi_version
    check(version.startswith("3.") and "+stepdeck." in version, f"version {version}")

    # create_or_select selects what exists; creating it again is StackAlreadyExistsError.
    again = create_or_select_stack(stack_name=name, work_dir=work_dir)
    check(again.name == name, again.name)
    try:
        create_stack(stack_name=name, work_dir=work_dir)
        raise AssertionError("created a stack twice")
    except StackAlreadyExistsError:
        pass
    try:
        select_stack(stack_name="organization/automation/missing", work_dir=work_dir)
        raise AssertionError("selected a missing stack")
    except StackNotFoundError:
        pass

    # Config: plain, secret, a value that looks like a flag, paths, bulk, removal.
    stack.set_config("plain", ConfigValue(value="hello"))
    stack.set_config("token", ConfigValue(value="hunter2", secret=True))
    stack.set_config("dash", ConfigValue(value="-value"))
    stack.set_config("db.ports[0]", ConfigValue(value="5432"), path=True)
    stack.set_config("db.password", ConfigValue(value="s3cret", secret=True), path=True)
    check(stack.get_config("plain").value == "hello", "plain")
    token = stack.get_config("token")
    check(token.value == "hunter2" and token.secret, f"token {token}")
    check(stack.get_config("dash").value == "-value", "dash")
    check(stack.get_config("db.password", path=True).value == "s3cret", "path secret")
    stack.set_all_config(
        {"a": ConfigValue(value="1"), "b": ConfigValue(value="two", secret=True)}
    )
    everything = stack.get_all_config()
    check(everything["automation:b"].value == "two", everything)
    check(everything["automation:b"].secret, everything)
    db = json.loads(everything["automation:db"].value)
    check(db == {"ports": [5432], "password": "s3cret"}, db)
    check(everything["automation:greeting"].value == "hi", "the project's default")
    stack.remove_config("a")
    stack.remove_all_config(["b", "db.ports"], path=True)
    everything = stack.get_all_config()
    check("automation:a" not in everything and "automation:b" not in everything, everything)
    check(json.loads(everything["automation:db"].value) == {"password": "s3cret"}, everything)
    try:
        stack.get_config("a")
        raise AssertionError("read a removed key")
    except CommandError as e:
        check("not found for stack" in str(e), str(e))

    # Stacks as listed: bare names for this project, the current one marked.
    other = create_stack(stack_name="organization/automation/other", work_dir=work_dir)
    listed = {s.name: s.current for s in ws.list_stacks()}
    check(listed == {"dev": False, "other": True}, listed)
    ws.select_stack(name)
    check(ws.stack().name == "dev", ws.stack())

    # Tags.
    stack.set_tag("owner", "ops")
    check(stack.get_tag("owner") == "ops", "tag")
    tags = stack.list_tags()
    check(tags["owner"] == "ops" and tags["pulumi:project"] == "automation", tags)
    stack.remove_tag("owner")
    check("owner" not in stack.list_tags(), "tag removed")

    # A stack that never ran has no history and no outputs.
    check(stack.history() == [] and stack.info() is None, "history before up")
    check(stack.outputs() == {}, "outputs before up")

    # A local program's update through the SDK: its events come over the gRPC stream.
    events = []
    result = stack.up(on_event=events.append)
    check(result.summary.result == "succeeded", result.summary)
    check(
        result.summary.resource_changes == {"create": 2},
        result.summary.resource_changes,
    )
    check(events and events[-1].cancel_event is not None, "up's events end with cancelEvent")

    outputs = stack.outputs()
    check(outputs["greeting"].value == "hi" and not outputs["greeting"].secret, outputs)
    check(outputs["secretOut"].secret and outputs["secretOut"].value == "hush", outputs)
    # The SDK marks only outputs secret at the top level; a nested one is shown in plain text.
    check(outputs["nested"].value == {"inner": "x"}, outputs)

    info = stack.info()
    check(info.kind == "update" and info.result == "succeeded", info)
    check(info.environment.get("exec.kind") == "auto.local", info.environment)
    token = info.config["automation:token"]
    check(token.secret and token.value == "hunter2", info.config)
    check(info.resource_changes == {"create": 2}, info.resource_changes)
    check(info.end_time >= info.start_time, info)
    check(len(stack.history(page_size=1, page=2)) == 0, "one update only")

    # Export and import: the deployment round-trips, secrets in plain text.
    deployment = stack.export_stack()
    check(deployment.version == 3, deployment.version)
    text = json.dumps(deployment.deployment)
    check("plaintext" in text and "ciphertext" not in text, "secrets shown")
    stack.import_stack(deployment)
    check(stack.outputs()["secretOut"].value == "hush", "outputs after import")

    # The latest update's configuration back into Pulumi.dev.yaml.
    stack.set_config("plain", ConfigValue(value="changed"))
    ws.refresh_config(name)
    check(stack.get_config("plain").value == "hello", "config refreshed")

    # Rename keeps the history; the stack then goes by its new name.
    renamed = stack.rename("organization/automation/prod")
    check(renamed.summary is not None and renamed.summary.kind == "update", renamed.summary)
    check("prod" in {s.name for s in ws.list_stacks()}, ws.list_stacks())

    # A stack with resources is only removed with force; afterwards it is not found.
    try:
        ws.remove_stack("organization/automation/prod")
        raise AssertionError("removed a stack with resources")
    except CommandError as e:
        check("still has resources" in str(e), str(e))
    ws.remove_stack("organization/automation/prod", force=True)
    check(not os.path.exists(os.path.join(work_dir, "Pulumi.prod.yaml")), "settings removed")
    try:
        select_stack(stack_name="organization/automation/prod", work_dir=work_dir)
        raise AssertionError("selected a removed stack")
    except StackNotFoundError:
        pass
    ws.remove_stack(other.name)
    check(ws.list_stacks() == [], ws.list_stacks())
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
