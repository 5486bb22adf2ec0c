#!/usr/bin/env bash
# Usage: scripts/pyenv.sh NAME REQUIREMENT...
#
# Creates (idempotently) a Python virtual environment at target/pyenv/NAME
# under the repository root, installs the given pip requirements into it,
# and prints the absolute path of the venv's python as the LAST line of
# stdout.  Everything else (pip/venv noise) goes to stderr so callers such as
# the Rust cross-check tests can simply read stdout.
#
# Separate venvs are needed because `pydraughts` and `py-draughts` both
# install a top-level package called `draughts` and would clobber each other.
set -euo pipefail
# The repository's root (DAMKA_ROOT, from this script's own location, so that it works from
# any current directory) and `die`.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ $# -ge 2 ] || die "usage: $0 NAME REQUIREMENT... (e.g. $0 pydraughts pydraughts==0.6.7)"
name=$1; shift
case $name in
    */*|.|..|'') die "invalid venv name '$name'" ;;
esac

root=$DAMKA_ROOT
venv="$root/target/pyenv/$name"
py="$venv/bin/python"
marker="$venv/.requirements"
want=$(printf '%s\n' "$@")

# Fast path: the venv exists and was fully installed with exactly these
# requirements (the marker is written only after a successful pip install).
if [ -x "$py" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ]; then
    echo "$py"
    exit 0
fi

python3=${PYTHON3:-python3}
command -v "$python3" >/dev/null 2>&1 \
    || die "python3 not found on PATH (install Python 3, e.g. apt-get install python3 python3-venv)"
"$python3" -c 'import venv, ensurepip' >/dev/null 2>&1 \
    || die "python3 has no working venv/ensurepip module (install it, e.g. apt-get install python3-venv)"

mkdir -p "$root/target/pyenv"
# Test suites may call this concurrently for the same venv (parallel test
# threads): serialise installs with a lock, then re-check the marker since
# another caller may have finished the install while we waited.
if command -v flock >/dev/null 2>&1; then
    exec 9>"$root/target/pyenv/.$name.lock"
    flock 9
    if [ -x "$py" ] && [ -f "$marker" ] && [ "$(cat "$marker")" = "$want" ]; then
        echo "$py"
        exit 0
    fi
fi

# A half-built venv (no python) is removed and recreated from scratch.
if [ ! -x "$py" ]; then
    rm -rf "$venv"
    "$python3" -m venv "$venv" >&2 || die "failed to create venv at $venv"
fi
"$py" -m pip --version >/dev/null 2>&1 || die "pip is not available in $venv"

rm -f "$marker"
"$py" -m pip install --disable-pip-version-check --no-input -q "$@" >&2 \
    || die "pip install failed for: $*"
printf '%s\n' "$want" > "$marker"

echo "$py"
