#!/usr/bin/env bash
# Runs Pulumi's own Automation API test suites against stepdeck named `pulumi`: the Python one
# (sdk/python/lib/test/automation, pytest) and the Node one (sdk/nodejs/tests/automation, mocha),
# from Pulumi's source at the release whose CLI surface stepdeck implements (`stepdeck version`).
# They drive the registry SDKs in target/sdk-env (.ci/install-sdks.sh) with a DIY file backend
# and a passphrase, as a Pulumi user without Pulumi Cloud would.
#
#   scripts/pulumi-aa-suites.sh [python] [node]     (default: both, in parallel)
#
# PULUMI_SRC=DIR uses an existing checkout of Pulumi's source instead of a shallow sparse clone
# into target/aa-suites/. Pulumi's files are only ever copied under target/, never committed.
# Exits 3 without running anything when that source cannot be had (no route to github.com).
# Needs the debug build (cargo build) and network access to PyPI/npm for the test runners.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$root/target/aa-suites"
sdk_env="${STEPDECK_SDK_ENV:-$root/target/sdk-env}"
stepdeck="$root/target/debug/stepdeck"
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(python node)

# Tests deselected by name, each for a reason outside stepdeck. Everything else must pass.
python_skips=(
  # Download the Pulumi CLI from get.pulumi.com.
  "lib/test/automation/test_cmd.py::test_install_default_root"
  "lib/test/automation/test_cmd.py::test_install_twice"
  "lib/test/automation/test_cmd.py::test_incompatible_version"
  # Need Go or .NET (stepdeck runs YAML, Python and Node.js programs).
  "lib/test/automation/test_errors.py::test_runtime_errors[go-panic: runtime error]"
  "lib/test/automation/test_errors.py::test_runtime_errors[dotnet-failed with an unhandled exception]"
  "lib/test/automation/test_errors.py::test_compilation_errors[go-: syntax error:|: undefined:]"
  "lib/test/automation/test_errors.py::test_compilation_errors[dotnet-Build FAILED.]"
  "lib/test/automation/test_local_workspace.py::TestLocalWorkspace::test_stack_lifecycle_local_program"
  # Download a plugin (random 4.16.3, aws 6.x) from the network.
  "lib/test/automation/test_local_workspace.py::TestLocalWorkspace::test_import_resources"
  "lib/test/automation/test_local_workspace.py::TestLocalWorkspace::test_plugin_functions"
)
# Mocha titles (describe blocks and test, joined by spaces), matched from their start.
node_skips=(
  # Download the Pulumi CLI from get.pulumi.com.
  "automation/cmd CLI installation"
  # Remote operations run on Pulumi Deployments (Pulumi Cloud): a remote workspace first checks
  # that `pulumi preview --help` offers `--remote`, which stepdeck does not.
  "RemoteWorkspace remote cmd args"
  # Need .NET (stepdeck runs YAML, Python and Node.js programs).
  "LocalWorkspace previews a destroy without executing it"
  "LocalWorkspace runs through the stack lifecycle with a local dotnet program"
  # Download a plugin (aws 6.1.0, random 4.16.3) from the network.
  "LocalWorkspace adds/removes/lists plugins successfully"
  "LocalWorkspace can import resources into a stack using resource definitions"
  "LocalWorkspace can import resources into a stack without generating code"
)

[ -x "$stepdeck" ] || { echo "build stepdeck first: cargo build --locked" >&2; exit 1; }
version="$("$stepdeck" version)"
tag="${version%%+*}"
mkdir -p "$work/bin"
ln -sf "$stepdeck" "$work/bin/pulumi"
export PATH="$work/bin:$PATH"

src="${PULUMI_SRC:-$work/pulumi-$tag}"
if [ ! -d "$src/sdk/python/lib/test/automation" ]; then
  rm -rf "$src"
  git clone --quiet --depth 1 --branch "$tag" --filter=blob:none --sparse \
    https://github.com/pulumi/pulumi "$src" || {
    echo "not run: cannot fetch Pulumi's source at $tag from github.com; set PULUMI_SRC to a checkout of it" >&2
    exit 3
  }
  git -C "$src" sparse-checkout set sdk/python/lib/test/automation sdk/nodejs/tests/automation
fi

run_python() {
  local py="$sdk_env/venv/bin/python" deps="$work/python-deps"
  if ! PYTHONPATH="$deps" "$py" -c 'import pytest, pytest_asyncio, pytest_timeout, xdist' 2>/dev/null; then
    "$py" -m pip install --quiet --disable-pip-version-check --target "$deps" \
      'pytest>=9,<10' 'pytest-asyncio>=1,<2' 'pytest-timeout>=2,<3' 'pytest-xdist>=3,<4'
  fi
  local dir="$work/run/python"
  rm -rf "$dir" && mkdir -p "$dir/lib"
  cp -R "$src/sdk/python/lib/test" "$dir/lib/test"
  printf '[pytest]\n' >"$dir/pytest.ini"
  # The Python error fixture installs the SDK from Pulumi's source tree (`-e ../../../../../..`);
  # the registry SDK under test stands in for it.
  local sdk_version
  sdk_version="$("$py" -c 'import importlib.metadata as m; print(m.version("pulumi"))')"
  echo "pulumi==$sdk_version" >"$dir/lib/test/automation/errors/runtime_error/python/requirements.txt"
  local args=()
  for t in "${python_skips[@]}"; do args+=(--deselect "$t"); done
  (cd "$dir" && PYTHONPATH="$work/python-deps" "$py" -m pytest -p no:cacheprovider -q -rfE \
    -n 2 --timeout 600 "${args[@]}" lib/test/automation)
}

run_node() {
  local tools="$work/node-tools"
  if [ ! -x "$tools/node_modules/.bin/mocha" ] || [ ! -d "$tools/node_modules/upath" ]; then
    mkdir -p "$tools"
    [ -f "$tools/package.json" ] || printf '{"name":"stepdeck-aa-suites","private":true}\n' >"$tools/package.json"
    (cd "$tools" && npm install --silent --no-audit --no-fund mocha@11 ts-node@10 typescript@5 upath)
  fi
  local dir="$work/run/node"
  rm -rf "$dir" && mkdir -p "$dir/tests"
  cp -R "$src/sdk/nodejs/tests/automation" "$dir/tests/automation"
  # The tests import the SDK by its source paths (`../../automation`, ...): each is the
  # registry package's module of that name.
  for m in automation config resource; do
    echo "module.exports = require(\"@pulumi/pulumi/$m\");" >"$dir/$m.js"
  done
  echo 'module.exports = require("@pulumi/pulumi");' >"$dir/index.js"
  printf '{"compilerOptions":{"module":"commonjs","target":"es2022","esModuleInterop":true}}\n' \
    >"$dir/tsconfig.json"
  local skip
  skip="^($(printf '%s|' "${node_skips[@]}" | sed 's/[.()]/\\&/g; s/|$//'))"
  # The SDK's own copy of semver comes first: the tests hand its SemVer objects to the SDK.
  # ts-node's compile cache (one directory under /tmp for every process) is off: parallel
  # workers writing it crashed V8 reading it back.
  (cd "$dir" && NODE_PATH="$sdk_env/node_modules:$tools/node_modules" TS_NODE_TRANSPILE_ONLY=true \
    DISABLE_V8_COMPILE_CACHE=1 \
    "$tools/node_modules/.bin/mocha" -r ts-node/register --timeout 450000 --parallel --jobs 2 \
    --grep "$skip" --invert 'tests/automation/**/*.spec.ts')
}

export PULUMI_CONFIG_PASSPHRASE=test
logs="$work/logs"
mkdir -p "$logs"
pids=()
for s in "${suites[@]}"; do
  backend="$(mktemp -d "$work/backend-$s.XXXXXX")"
  (
    export PULUMI_BACKEND_URL="file://$backend"
    start=$SECONDS
    status=0
    "run_$s" >"$logs/$s.log" 2>&1 || status=$?
    echo "$s suite: exit $status in $((SECONDS - start))s" >>"$logs/$s.log"
    exit "$status"
  ) &
  pids+=($!)
done
status=0
for i in "${!suites[@]}"; do
  wait "${pids[$i]}" || status=1
  echo "==== Pulumi's ${suites[$i]} Automation API suite (skipped by name: see scripts/pulumi-aa-suites.sh) ===="
  tail -n 60 "$logs/${suites[$i]}.log"
done
exit "$status"
