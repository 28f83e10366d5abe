#!/usr/bin/env bash
# Installs the Pulumi SDKs the rpc tests drive into target/sdk-env/ (idempotent):
#   target/sdk-env/venv          Python virtualenv with pulumi, pulumi-random, pulumi-command and
#                                pulumi_policy (policy packs)
#   target/sdk-env/tools         virtualenv holding the uv and poetry CLIs (Python projects whose
#                                runtime.options.toolchain is uv or poetry); tests put its bin/
#                                on the programs' PATH
#   target/sdk-env/node_modules  @pulumi/pulumi, @pulumi/random, @pulumi/command, @pulumi/policy,
#                                typescript and @types/node for TypeScript programs (typescript
#                                5.x, the major Pulumi's templates use: 6 rejects their tsconfig's
#                                moduleResolution); pnpm, yarn (classic) and bun, the package
#                                managers a Node.js project may name (their bins in .bin)
# Tests find them through STEPDECK_SDK_ENV (default: <repo>/target/sdk-env).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
env_dir="${STEPDECK_SDK_ENV:-$root/target/sdk-env}"
mkdir -p "$env_dir"

python="${PYTHON:-python3}"
if [ ! -x "$env_dir/venv/bin/python" ]; then
  "$python" -m venv "$env_dir/venv"
fi
if ! "$env_dir/venv/bin/python" -c 'import pulumi, pulumi_random, pulumi_command, pulumi_policy' 2>/dev/null; then
  "$env_dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    pulumi pulumi-random pulumi-command pulumi_policy
fi

if [ ! -x "$env_dir/tools/bin/python" ]; then
  "$python" -m venv "$env_dir/tools"
fi
if [ ! -x "$env_dir/tools/bin/uv" ] || [ ! -x "$env_dir/tools/bin/poetry" ]; then
  "$env_dir/tools/bin/python" -m pip install --quiet --disable-pip-version-check uv poetry
fi

if [ ! -f "$env_dir/node_modules/@pulumi/pulumi/cmd/run/index.js" ] \
  || [ ! -d "$env_dir/node_modules/@pulumi/random" ] \
  || [ ! -d "$env_dir/node_modules/@pulumi/command" ] \
  || [ ! -d "$env_dir/node_modules/@pulumi/policy" ] \
  || [ ! -d "$env_dir/node_modules/typescript" ] \
  || [ ! -d "$env_dir/node_modules/@types/node" ] \
  || [ ! -e "$env_dir/node_modules/.bin/pnpm" ] \
  || [ ! -e "$env_dir/node_modules/.bin/yarn" ] \
  || [ ! -e "$env_dir/node_modules/.bin/bun" ]; then
  if [ ! -f "$env_dir/package.json" ]; then
    printf '{"name":"stepdeck-sdk-env","private":true}\n' >"$env_dir/package.json"
  fi
  (cd "$env_dir" && npm install --silent --no-audit --no-fund @pulumi/pulumi @pulumi/random @pulumi/command @pulumi/policy typescript@^5 @types/node pnpm yarn@^1 bun)
fi

echo "SDKs ready in $env_dir"
