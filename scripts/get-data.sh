#!/usr/bin/env bash
# Usage: scripts/get-data.sh [VARIANT...]
#
# Fetches the published self-play chunks (data/README.md) of the given variants (all when
# none is given) into data/selfplay/ as the `FEN;RESULT` text files `damka tune` reads, and
# checks each against data/selfplay.sha256. The chunks are not in main's tree: they are kept,
# xz-compressed, in the commit named below, which main's history holds; a shallow clone
# fetches that one commit first. Needs git, xz and sha256sum.
set -euo pipefail

# The commit whose tree holds data/selfplay/*.txt.xz (the last one before they left the tree).
HOLDER=67c419c498ce428eb9c2a031e028c2dbe43d2aa0

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$DAMKA_ROOT"
for tool in git xz sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed"
done

manifest=data/selfplay.sha256
[ -f "$manifest" ] || die "$manifest is missing"
if [ $# -eq 0 ]; then
    wanted=$(cat "$manifest")
else
    wanted=""
    for variant in "$@"; do
        lines=$(grep "  selfplay/$variant-[0-9]*\.txt\$" "$manifest" || true)
        [ -n "$lines" ] || die "no published chunks of '$variant' (the manifest has: $(sed 's|.*selfplay/||; s|-[0-9]*\.txt$||' "$manifest" | sort -u | tr '\n' ' '))"
        wanted+="$lines"$'\n'
    done
fi

if ! git cat-file -e "$HOLDER^{commit}" 2>/dev/null; then
    echo "fetching commit $HOLDER (the clone does not hold it)" >&2
    git fetch --quiet --depth 1 origin "$HOLDER" \
        || die "cannot fetch $HOLDER: run 'git fetch --unshallow' in a clone of damka's repository and try again"
fi

mkdir -p data/selfplay
fetched=0
kept=0
while read -r hash entry; do
    [ -n "$hash" ] || continue
    target="data/$entry"
    if [ -f "$target" ] && [ "$(sha256sum "$target" | cut -d' ' -f1)" = "$hash" ]; then
        kept=$((kept + 1))
        continue
    fi
    git show "$HOLDER:data/$entry.xz" | xz -dc > "$target.part" \
        || die "cannot extract data/$entry.xz from $HOLDER"
    mv "$target.part" "$target"
    fetched=$((fetched + 1))
done <<< "$wanted"

# The check, with the standard tool, of every chunk asked for.
(cd data && printf '%s\n' "$wanted" | grep . | sha256sum --check --quiet -) \
    || die "a chunk does not match data/selfplay.sha256"
echo "data/selfplay: $fetched chunks fetched, $kept already there, all as data/selfplay.sha256 has them"
