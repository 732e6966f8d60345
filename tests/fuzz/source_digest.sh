#!/usr/bin/env bash
# The source digest of a fuzz target (issue 22, bench/fuzz's ledger): SHA-256 over the
# SHA-256 of each file it is compiled from (sources and the headers they may include, listed
# one per line relative to ROOT in LIST), first 16 hex digits. Two binaries with the same
# digest were built from identical code, so their executions add up toward the 10M target
# (docs/verification.md "Robustness"). With COMMIT the files are read from that git commit
# instead of the work tree (the ledger lines written before the digest column existed).
# Usage: source_digest.sh [-o OUT] ROOT LIST [COMMIT]. Prints the digest (or writes it to
# OUT, for the build), or exits 1 when a listed file is missing (in the tree or in COMMIT).
set -euo pipefail
out=""
if [ "$1" = -o ]; then out=$2; shift 2; fi
root=$1 list=$2 commit=${3:-}
file_hashes() { # "SHA256 PATH" per listed file
  local f h
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    if [ -n "$commit" ]; then
      git -C "$root" cat-file -e "$commit:$f" 2>/dev/null || return 1
      h=$(git -C "$root" show "$commit:$f" | sha256sum)
    else
      [ -f "$root/$f" ] || return 1
      h=$(sha256sum < "$root/$f")
    fi
    printf '%s %s\n' "${h%% *}" "$f"
  done < "$list"
}
hashes=$(file_hashes) || exit 1
d=$(printf '%s\n' "$hashes" | sha256sum | cut -c1-16)
if [ -z "$out" ]; then echo "$d"; exit 0; fi
printf '%s\n' "$d" > "$out.tmp" && mv "$out.tmp" "$out"
