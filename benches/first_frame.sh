#!/usr/bin/env bash
# Time from starting the console in tmux to the first `capture-pane` that shows its top bar.
#
#   bash benches/first_frame.sh [runs] [stepdeck binary] [-- stepdeck arguments]
#
# Defaults: 10 runs of `target/release/stepdeck demo` (build it with
# `cargo build --release --bin stepdeck`), each in a fresh tmux session of 160x40 with its own
# file backend. The pane is polled every 2 ms; one capture-pane costs a few ms itself, so the
# figures are upper bounds by about that much. Prints each run and the median, in ms.
set -euo pipefail

runs=${1:-10}
bin=${2:-target/release/stepdeck}
shift $(( $# < 2 ? $# : 2 ))
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(demo)
bin=$(realpath "$bin")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
times=()
for i in $(seq 1 "$runs"); do
  session="stepdeck-first-frame-$$-$i"
  mkdir -p "$work/$i"
  start=$(date +%s%N)
  tmux new-session -d -s "$session" -x 160 -y 40 -c "$work/$i" \
    "STEPDECK_BACKEND_URL=file://$work/$i $bin ${args[*]}; sleep 30"
  while ! tmux capture-pane -p -t "$session" | head -n 1 | grep -q "stepdeck .*⏱"; do
    sleep 0.002
    if (( ($(date +%s%N) - start) > 10000000000 )); then
      echo "run $i: no top bar after 10 s" >&2
      tmux capture-pane -p -t "$session" >&2
      tmux kill-session -t "$session"
      exit 1
    fi
  done
  end=$(date +%s%N)
  tmux kill-session -t "$session"
  ms=$(( (end - start) / 1000000 ))
  times+=("$ms")
  echo "run $i: ${ms} ms"
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
echo "first frame after start (${args[*]}): median ${sorted[$(( runs / 2 ))]} ms, min ${sorted[0]} ms, max ${sorted[$(( runs - 1 ))]} ms over $runs runs"
