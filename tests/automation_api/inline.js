// Pulumi's Node Automation API (the registry's `@pulumi/pulumi/automation`) running an inline
// program on stepdeck as `pulumi`: `--client` (the program runs in this process, behind the
// SDK's language runtime server) and the gRPC event stream `onEvent` reads.
//
// Run by `tests/cli_e2e.rs` (`the_node_automation_api_runs_an_inline_program_with_grpc_events`)
// with `pulumi` on PATH being stepdeck, NODE_PATH at the SDKs, `PULUMI_CONFIG_PASSPHRASE` and
// the backend in the environment. Usage: node inline.js WORK_DIR. Every check throws.

const { LocalWorkspace } = require("@pulumi/pulumi/automation");
const pulumi = require("@pulumi/pulumi");

function check(cond, what) {
  if (!cond) {
    throw new Error(what);
  }
}

async function main(workDir) {
  const program = async () => ({
    greeting: new pulumi.Config().get("greeting") ?? "none",
    stack: pulumi.getStack(),
  });
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "dev", projectName: "inlinejs", program },
    { workDir, projectSettings: { name: "inlinejs", runtime: "nodejs" } },
  );
  await stack.setConfig("greeting", { value: "hello" });

  let events = [];
  const preview = await stack.preview({ onEvent: (e) => events.push(e) });
  check(JSON.stringify(preview.changeSummary) === '{"create":1}', `preview: ${JSON.stringify(preview.changeSummary)}`);
  check(events.filter((e) => e.summaryEvent).length === 1, "one summary event in the preview");
  check(events[events.length - 1].cancelEvent !== undefined, "the stream ends with cancelEvent");

  events = [];
  const up = await stack.up({ onEvent: (e) => events.push(e) });
  check(up.summary.result === "succeeded", `up: ${up.summary.result}`);
  check(up.outputs.greeting.value === "hello", `outputs: ${JSON.stringify(up.outputs)}`);
  check(up.outputs.stack.value === "dev", `outputs: ${JSON.stringify(up.outputs)}`);
  check(events.some((e) => e.resourcePreEvent), "up's events include a resourcePreEvent");

  const refresh = await stack.refresh({ onEvent: (e) => events.push(e) });
  check(refresh.summary.result === "succeeded", `refresh: ${refresh.summary.result}`);

  const destroy = await stack.destroy({ onEvent: (e) => events.push(e) });
  check(destroy.summary.result === "succeeded", `destroy: ${destroy.summary.result}`);
  check(
    JSON.stringify(destroy.summary.resourceChanges) === '{"delete":1}',
    `destroy: ${JSON.stringify(destroy.summary.resourceChanges)}`,
  );
  await stack.workspace.removeStack("dev");
  console.log("ok");
}

main(process.argv[2]).catch((e) => {
  console.error(e);
  process.exit(1);
});
