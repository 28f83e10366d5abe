// Pulumi's Node Automation API (the registry's `@pulumi/pulumi/automation`) driving stepdeck as
// `pulumi`: `Stack.import` (an import file, `--out` read back as `generatedCode`) against a
// local YAML project, and `listPlugins` parsing `plugin ls --json`.
//
// Run by `tests/cli_commands.rs` with `pulumi` on PATH being stepdeck, NODE_PATH at the SDKs,
// `PULUMI_CONFIG_PASSPHRASE` and the backend in the environment. Usage: node commands.js
// WORK_DIR. Every check throws.

const fs = require("fs");
const path = require("path");
const { LocalWorkspace } = require("@pulumi/pulumi/automation");

function check(cond, what) {
  if (!cond) {
    throw new Error(what);
  }
}

const PROGRAM = `name: adoptjs
runtime: yaml
resources:
  net:
    type: sim:index:Network
    properties:
      cidr: 10.2.0.0/16
outputs:
  netId: \${net.id}
`;

async function main(workDir) {
  fs.writeFileSync(path.join(workDir, "Pulumi.yaml"), PROGRAM);
  const maker = await LocalWorkspace.createStack({ stackName: "maker", workDir });
  const up = await maker.up();
  check(up.summary.result === "succeeded", `up: ${up.summary.result}`);
  const netId = up.outputs.netId.value;

  const stack = await LocalWorkspace.createStack({ stackName: "dev", workDir });
  const result = await stack.import({
    resources: [{ type: "sim:index:Network", name: "adopted", id: netId }],
    protect: false,
  });
  check(result.generatedCode.includes("adopted:"), result.generatedCode);
  check(result.generatedCode.includes("cidr: 10.2.0.0/16"), result.generatedCode);
  check(result.summary.kind === "import", JSON.stringify(result.summary));
  check(result.summary.result === "succeeded", JSON.stringify(result.summary));
  const state = await stack.exportStack();
  const adopted = state.deployment.resources.filter((r) => r.urn.endsWith("::adopted"));
  check(adopted.length === 1 && adopted[0].id === netId, JSON.stringify(state.deployment.resources));

  const plugins = await stack.workspace.listPlugins();
  const sim = plugins.find((p) => p.name === "sim");
  check(sim && sim.kind === "resource", JSON.stringify(plugins));
  check(sim.lastUsedTime instanceof Date && !isNaN(sim.lastUsedTime), JSON.stringify(sim));
  console.log("ok");
}

main(process.argv[2]).catch((e) => {
  console.error(e);
  process.exit(1);
});
