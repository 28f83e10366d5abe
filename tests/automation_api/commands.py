"""Pulumi's Python Automation API (the registry's `pulumi.automation`) driving stepdeck as
`pulumi`: `Stack.import_resources` (an import file, `--out` read back as `generated_code`,
the summary `info()` reads) against a local YAML project, and the workspace's plugin calls
(`list_plugins` parses `plugin ls --json`; `install_plugin` cannot download) and
`Stack.cancel` with nothing running.

Run by `tests/cli_commands.rs` with `pulumi` on PATH being stepdeck, `PULUMI_CONFIG_PASSPHRASE`
and the backend in the environment. Usage: python commands.py WORK_DIR. Every check raises on
failure.
"""

import os
import sys

from pulumi.automation import CommandError, create_stack


def check(cond, what):
    if not cond:
        raise AssertionError(what)


PROGRAM = """name: adopt
runtime: yaml
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.1.0.0/16
outputs:
  netId: ${net.id}
"""


def main(work_dir):
    with open(os.path.join(work_dir, "Pulumi.yaml"), "w", encoding="utf-8") as f:
        f.write(PROGRAM)
    # One stack makes a network; another adopts it.
    maker = create_stack(stack_name="organization/adopt/maker", work_dir=work_dir)
    up = maker.up()
    check(up.summary.result == "succeeded", up.summary)
    net_id = maker.outputs()["netId"].value

    stack = create_stack(stack_name="organization/adopt/dev", work_dir=work_dir)
    result = stack.import_resources(
        resources=[{"type": "sim:index:Network", "name": "adopted", "id": net_id}],
        protect=False,
        message="adopting",
    )
    check("adopted:" in result.generated_code, result.generated_code)
    check("type: sim:index:Network" in result.generated_code, result.generated_code)
    check("cidr: 10.1.0.0/16" in result.generated_code, result.generated_code)
    check("protect" not in result.generated_code, result.generated_code)
    check(result.summary.kind == "import", result.summary)
    check(result.summary.result == "succeeded", result.summary)
    check(result.summary.message == "adopting", result.summary)
    check(result.summary.resource_changes.get("import") == 1, result.summary)

    resources = stack.export_stack().deployment["resources"]
    adopted = [r for r in resources if r["urn"].endswith("::adopted")]
    check(len(adopted) == 1 and adopted[0]["id"] == net_id, resources)
    check(not adopted[0].get("protect", False), adopted)

    # Without code generation nothing is read back.
    again = stack.import_resources(
        resources=[{"type": "sim:index:Network", "name": "adopted", "id": net_id}],
        generate_code=False,
    )
    check(again.generated_code == "", again.generated_code)

    # Plugins: the built-in providers are listed as Pulumi lists plugins.
    plugins = {p.name: p for p in stack.workspace.list_plugins()}
    for name in ["sim", "random", "command"]:
        check(name in plugins and plugins[name].kind == "resource", plugins)
        check(plugins[name].last_used is not None, plugins[name])
    try:
        stack.workspace.install_plugin("aws", "v6.0.0")
        raise AssertionError("installed a plugin without a file")
    except CommandError as e:
        check("--file" in str(e), str(e))
    stack.workspace.remove_plugin(name="nothing-installed")

    # Nothing runs on the stack: cancelling is a no-op, as on Pulumi's self-managed backends.
    stack.cancel()
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
