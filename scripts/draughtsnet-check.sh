#!/usr/bin/env bash
# Runs the real draughtsnet client (lidraughts' distributed analysis client) with `damka hub`
# as its engine against scripts/draughtsnet_standin.py, a local stand-in for lidraughts'
# endpoint, and prints the stand-in's checks (docs/draughtsnet.md).
#
# Usage: scripts/draughtsnet-check.sh DRAUGHTSNET_DIR [JOBS [CORES]]
#   DRAUGHTSNET_DIR  a checkout of github.com/RoepStoep/draughtsnet (draughtsnet.py in it);
#                    also read from $DRAUGHTSNET_DIR. Not part of damka and not fetched here.
#   JOBS             analysis jobs and move jobs per variant (default 20)
#   CORES            the client's --cores (default 2)
# Environment: DAMKA (the damka binary; default target/release/damka, built if missing;
#   scripts/lib.sh),
#   PORT (default 9670), LIMIT_MIN (minutes before giving up; default 90).
# Exit status 0 when every job was answered and passed the checks, 1 otherwise.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$DAMKA_ROOT
client_dir=${1:-${DRAUGHTSNET_DIR:-}}
[ -n "$client_dir" ] && [ -f "$client_dir/draughtsnet.py" ] || die "no draughtsnet.py in '${client_dir}'.
Get the client first (it is not part of damka):
    git clone https://github.com/RoepStoep/draughtsnet /some/dir
then run: $0 /some/dir"
jobs=${2:-20}
cores=${3:-2}
port=${PORT:-9670}
limit_min=${LIMIT_MIN:-90}

damka=$(damka_binary)
py=$("$root/scripts/pyenv.sh" draughtsnet pydraughts==0.6.7 requests | tail -n 1)

work="$root/target/draughtsnet"
mkdir -p "$work/engine"
summary="$work/summary.json"
rm -f "$summary"

"$py" "$root/scripts/draughtsnet_standin.py" --port "$port" --jobs "$jobs" \
    --summary "$summary" > "$work/standin.log" 2>&1 &
standin=$!
client=""
cleanup() {
    [ -n "$client" ] && kill -- -"$client" 2>/dev/null || true
    kill "$standin" 2>/dev/null || true
}
trap cleanup EXIT
# The stand-in plays its random games first (about half a minute), then listens.
until grep -q "^stand-in:" "$work/standin.log" 2>/dev/null; do
    kill -0 "$standin" 2>/dev/null || die "the stand-in did not start: $(cat "$work/standin.log")"
    sleep 1
done

# The client in a process group of its own, so that it and its engines can be stopped.
setsid "$py" "$client_dir/draughtsnet.py" --no-conf --endpoint "http://127.0.0.1:$port/" \
    --key damkatest --engine-dir "$work/engine" --scan-command "$damka hub" \
    --cores "$cores" --memory 256 run > "$work/client.log" 2>&1 &
client=$!

deadline=$((SECONDS + limit_min * 60))
while [ ! -f "$summary" ]; do
    kill -0 "$client" 2>/dev/null || die "the client stopped early: $(tail -n 20 "$work/client.log")"
    [ $SECONDS -lt $deadline ] || die "not done within $limit_min minutes; see $work/client.log"
    sleep 5
done
sleep 1
"$py" - "$summary" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
for variant, kinds in s["variants"].items():
    for kind, row in kinds.items():
        print("%-13s %-11s jobs %3d  answered %3d  passed %3d  aborted %d" % (
            variant, kind, row["jobs"], row["answered"], row["passed"], row["aborted"]))
        for failure in row["failed"]:
            print("    failed:", json.dumps(failure))
print("all passed" if s["ok"] else "FAILED")
sys.exit(0 if s["ok"] else 1)
EOF
