"""Pulumi's Python Automation API (the registry's `pulumi.automation`) passing a policy pack to
stepdeck as `pulumi` (`policy_packs=`, `policy_pack_configs=`), and reading the violations
from the gRPC event stream as `PolicyEvent`s.

Run by `tests/cli_policy_packs.rs` (`the_automation_api_passes_packs_and_reads_their_violations`)
with `pulumi` on PATH being stepdeck. Usage: python policy.py PROJECT_DIR PACK CONFIG. Every
check raises on failure.
"""

import sys

from pulumi.automation import CommandError, select_stack


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def violations(events):
    return sorted(
        (e.policy_event.policy_pack_name, e.policy_event.policy_name, e.policy_event.enforcement_level)
        for e in events
        if e.policy_event
    )


def main(project, pack, config):
    stack = select_stack(stack_name="dev", work_dir=project)

    events = []
    try:
        stack.preview(policy_packs=[pack], on_event=events.append)
        raise AssertionError("a mandatory violation fails the preview")
    except CommandError as e:
        check("preview failed" in str(e), f"the preview's error: {e}")
    check(
        ("py-pack", "no-pg15", "mandatory") in violations(events),
        f"the preview's violations: {violations(events)}",
    )

    events = []
    up = stack.up(policy_packs=[pack], policy_pack_configs=[config], on_event=events.append)
    check(up.summary.result == "succeeded", f"up: {up.summary.result}")
    check(up.summary.resource_changes == {"create": 3}, f"up: {up.summary.resource_changes}")
    found = violations(events)
    check(("py-pack", "no-pg15", "advisory") in found, f"the config's level: {found}")
    check(all(name != "watched" for _, name, _ in found), f"disabled by the config: {found}")
    print("ok")


if __name__ == "__main__":
    main(*sys.argv[1:4])
