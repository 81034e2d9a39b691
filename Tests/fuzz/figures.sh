#!/usr/bin/env bash
# Tests/fuzz/figures.sh — the fuzzing figures of build/fuzz/figures.tsv (every run of run.sh on
# this machine appends a line a harness) as the Markdown table RELIABILITY.md shows: runs,
# executions summed over them, highest coverage and speed, commits fuzzed, and findings (runs
# that did not end cleanly; a run stopped by SIGINT, exit 72, is none).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tsv="${1:-$here/../../build/fuzz/figures.tsv}"
[[ -f "$tsv" ]] || { echo "no $tsv: run Tests/fuzz/run.sh first" >&2; exit 1; }
echo "| harness | runs | executions | coverage (edges) | exec/s (best) | findings | commits |"
echo "|---|---|---|---|---|---|---|"
awk -F'\t' 'NF == 7 {
    h = $3; runs[h]++; ex[h] += $4
    if ($6 > cov[h]) cov[h] = $6
    if ($5 > sp[h]) sp[h] = $5
    if ($7 != 0 && $7 != 72) bad[h]++   # 72: stopped by SIGINT, not a finding
    if (index(" " commits[h] " ", " " $2 " ") == 0) commits[h] = commits[h] (commits[h] ? " " : "") $2
  }
  END { for (h in ex) printf "| `%s` | %d | %d | %d | %d | %d | %s |\n", h, runs[h], ex[h], cov[h], sp[h], bad[h], commits[h] }' \
  "$tsv" | sort
