# What the shell scripts of scripts/ share: the repository's root, the damka binary they run
# (built when needed) and the test positions of scripts/positions.txt. Sourced, not run:
#
#     . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# DAMKA_ROOT            the repository's root (absolute), whatever the current directory
# die MESSAGE           prints "SCRIPT: MESSAGE" on stderr and exits 1
# damka_binary [PATH]   the damka to run: PATH when given, else $DAMKA when set, else
#                       target/release/damka, built (cargo build --release) only when missing
# damka_current [PATH]  the same, but target/release/damka is always brought up to date with
#                       the working tree first (cargo build --release --quiet): for measuring
#                       the tree as it is
# position_fen NAME     the FEN of position NAME in scripts/positions.txt
# load_average          the load averages over 1, 5 and 15 minutes, as /proc/loadavg has them

DAMKA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

die() {
    echo "$(basename "$0"): $*" >&2
    exit 1
}

# Prints the release binary's path, after building it when $1 is "always" or it is missing.
release_binary() {
    local bin="$DAMKA_ROOT/target/release/damka"
    if [ "$1" = always ] || [ ! -x "$bin" ]; then
        (cd "$DAMKA_ROOT" && cargo build --release --quiet) >&2 || die "cargo build --release failed"
    fi
    echo "$bin"
}

damka_binary() {
    local given=${1:-${DAMKA:-}}
    if [ -n "$given" ]; then echo "$given"; else release_binary if-missing; fi
}

damka_current() {
    local given=${1:-${DAMKA:-}}
    if [ -n "$given" ]; then echo "$given"; else release_binary always; fi
}

position_fen() {
    local fen
    fen=$(awk -v name="$1" '$1 == name { print $3; exit }' "$DAMKA_ROOT/scripts/positions.txt")
    [ -n "$fen" ] || die "no position '$1' in scripts/positions.txt"
    echo "$fen"
}

load_average() {
    cut -d' ' -f1-3 /proc/loadavg
}
