"""Pulumi's Python Automation API (the registry's `pulumi.automation`) running an inline
program on stepdeck as `pulumi`: `--client` (the program runs in this process, behind the
SDK's language runtime server) and the gRPC event stream (`--event-log tcp://...`, which the
SDK uses with any CLI above 3.205).

Run by `tests/cli_e2e.rs` (`the_python_automation_api_runs_an_inline_program`) with `pulumi`
on PATH being stepdeck, `PULUMI_CONFIG_PASSPHRASE` and the backend in the environment.
Usage: python inline.py WORK_DIR. Every check raises on failure.
"""

import sys

import pulumi
from pulumi.automation import (
    CommandError,
    LocalWorkspaceOptions,
    ProjectSettings,
    create_or_select_stack,
)


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def program():
    config = pulumi.Config()
    pulumi.export("greeting", config.get("greeting") or "none")
    pulumi.export("secret", pulumi.Output.secret("hush"))
    pulumi.export("stack", pulumi.get_stack())


def main(work_dir):
    stack = create_or_select_stack(
        stack_name="dev",
        project_name="inline",
        program=program,
        opts=LocalWorkspaceOptions(
            work_dir=work_dir,
            project_settings=ProjectSettings(name="inline", runtime="python"),
        ),
    )
    stack.set_config("greeting", pulumi.automation.ConfigValue("hello"))

    events = []
    preview = stack.preview(on_event=events.append)
    check(preview.change_summary == {"create": 1}, f"preview: {preview.change_summary}")
    kinds = [e for e in events if e.summary_event]
    check(len(kinds) == 1, f"one summary event in the preview: {events}")
    check(events[-1].cancel_event is not None, "the stream ends with cancelEvent")
    check(
        [e.sequence for e in events] == list(range(len(events))),
        f"events arrive in order: {[e.sequence for e in events]}",
    )

    events = []
    up = stack.up(on_event=events.append)
    check(up.summary.result == "succeeded", f"up: {up.summary.result}")
    check(up.summary.resource_changes == {"create": 1}, f"up: {up.summary.resource_changes}")
    check(up.outputs["greeting"].value == "hello", f"outputs: {up.outputs}")
    check(up.outputs["secret"].secret, f"secret output: {up.outputs}")
    check(up.outputs["stack"].value == "dev", f"outputs: {up.outputs}")
    summaries = [e.summary_event for e in events if e.summary_event]
    check(
        len(summaries) == 1 and summaries[0].resource_changes == {"create": 1},
        f"up's summary event: {summaries}",
    )
    check(
        any(e.resource_pre_event for e in events),
        "up's events include the stack's resourcePreEvent",
    )

    events = []
    preview = stack.preview(on_event=events.append)
    check(preview.change_summary == {"same": 1}, f"second preview: {preview.change_summary}")

    events = []
    refresh = stack.refresh(on_event=events.append)
    check(refresh.summary.result == "succeeded", f"refresh: {refresh.summary.result}")
    check(any(e.summary_event for e in events), "refresh's summary event")

    events = []
    destroy = stack.destroy(on_event=events.append)
    check(destroy.summary.result == "succeeded", f"destroy: {destroy.summary.result}")
    check(
        destroy.summary.resource_changes == {"delete": 1},
        f"destroy: {destroy.summary.resource_changes}",
    )
    check(any(e.summary_event for e in events), "destroy's summary event")
    stack.workspace.remove_stack("dev")

    # A program that raises: the update fails with the program's error, and the next one runs.
    def failing():
        raise ValueError("boom from inline")

    opts = LocalWorkspaceOptions(
        work_dir=work_dir,
        project_settings=ProjectSettings(name="inline", runtime="python"),
    )
    broken = create_or_select_stack(
        stack_name="broken", project_name="inline", program=failing, opts=opts
    )
    try:
        broken.up()
        raise AssertionError("a failing inline program's update succeeded")
    except CommandError as e:
        check("python inline source runtime error: boom from inline" in str(e), str(e))
    fixed = create_or_select_stack(
        stack_name="broken", project_name="inline", program=program, opts=opts
    )
    check(fixed.up().summary.result == "succeeded", "the update after a failure")
    fixed.destroy()
    fixed.workspace.remove_stack("broken")
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
