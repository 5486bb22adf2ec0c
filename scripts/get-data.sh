#!/usr/bin/env bash
# Usage: scripts/get-data.sh [VARIANT...]
#
# Fetches the published self-play chunks (data/README.md) of the given variants (all when
# none is given) into data/selfplay/ as the `FEN;RESULT` text files `damka tune` reads, and
# checks each against data/selfplay.sha256. The chunks are not in main's tree: they are kept,
# xz-compressed, in the commits named below, which main's history holds; a shallow clone
# fetches the commits it needs first. Needs git, xz and sha256sum.
set -euo pipefail

# The commits whose trees hold data/selfplay/*.txt.xz: every chunk of the first fits (the last
# commit before they left the tree), then English's table-adjudicated chunks `english2-*` and
# its network games `english3-*` and `english4-*`, and `english4d11-*` (the first english4
# chunks with 11-ply scores); each in a commit that added them, the next one removed them again.
HOLDER=67c419c498ce428eb9c2a031e028c2dbe43d2aa0
HOLDER_ENGLISH2=02ff2aafeeb7867ff9543cf352b5f9484b5ee2e6
HOLDER_ENGLISH3=a587790a6e634b146dca2e8ccbb1c8aa2304cd9d
HOLDER_ENGLISH4=80d7ab8d806a8a6d00471552ff5581c23848b8fc
HOLDER_ENGLISH4D11=1600b028eac8856c577b8ef934cd65711993af77
holder_of() {
    case "$1" in
        selfplay/english2-*) echo "$HOLDER_ENGLISH2" ;;
        selfplay/english3-*) echo "$HOLDER_ENGLISH3" ;;
        selfplay/english4-*) echo "$HOLDER_ENGLISH4" ;;
        selfplay/english4d11-*) echo "$HOLDER_ENGLISH4D11" ;;
        *) echo "$HOLDER" ;;
    esac
}

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

holders=$(while read -r _ entry; do [ -z "$entry" ] || holder_of "$entry"; done <<< "$wanted" | sort -u)
for holder in $holders; do
    if ! git cat-file -e "$holder^{commit}" 2>/dev/null; then
        echo "fetching commit $holder (the clone does not hold it)" >&2
        git fetch --quiet --depth 1 origin "$holder" \
            || die "cannot fetch $holder: run 'git fetch --unshallow' in a clone of damka's repository and try again"
    fi
done

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
    holder=$(holder_of "$entry")
    git show "$holder:data/$entry.xz" | xz -dc > "$target.part" \
        || die "cannot extract data/$entry.xz from $holder"
    mv "$target.part" "$target"
    fetched=$((fetched + 1))
done <<< "$wanted"

# The check, with the standard tool, of every chunk asked for.
(cd data && printf '%s\n' "$wanted" | grep . | sha256sum --check --quiet -) \
    || die "a chunk does not match data/selfplay.sha256"
echo "data/selfplay: $fetched chunks fetched, $kept already there, all as data/selfplay.sha256 has them"
