# Sourced by the table scripts (reqa-table.sh; the training tables are regression specs now): their
# statistics, and their loop over a table's rows and seeds, which resumes
# from a file of finished runs.

# stat X... prints the mean ± sample standard deviation of fractions, in
# percent.
stat() { printf '%s\n' "$@" | awk '{s+=$1; q+=$1*$1; n++} END {m=s/n; v=(n>1)?(q-n*m*m)/(n-1):0; if (v<0) v=0; printf "%.2f ± %.2f", 100*m, 100*sqrt(v)}'; }

# median X... prints the median.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {printf "%.1f", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# run_line RUNS NAME SEED prints the last line of RUNS for that row and seed.
run_line() { awk -F'\t' -v n="$2" -v s="$3" '$1 == n && $2 == s' "$1" | tail -n 1; }

# each_row VARIANTS SEEDS RUNS ROW goes through the "row name|flags" lines
# of the file VARIANTS whose name matches $ONLY (all if unset). For each
# seed $FROM..SEEDS ($FROM default 1: two tables with different FROM run
# seeds side by side) with no line "name<TAB>seed<TAB>..." in RUNS, it calls
# `run NAME FLAGS SEED`, which appends that line (unless $REPORT is set:
# then nothing is run). It then calls `ROW LABEL LINE...` with the row's
# lines; the label says how many seeds a row has when it has fewer than
# SEEDS. Rows with no runs are left out.
each_row() {
  local variants=$1 seeds=$2 runs=$3 row=$4 v name flags seed found label
  local -a lines
  while IFS= read -r v; do
    [ -z "$v" ] && continue
    name=${v%%|*}
    flags=${v#*|}
    if [ -n "${ONLY:-}" ] && ! grep -qE -- "${ONLY}" <<<"$name"; then
      continue
    fi
    lines=()
    for seed in $(seq "${FROM:-1}" "$seeds"); do
      found=$(run_line "$runs" "$name" "$seed")
      if [ -z "$found" ] && [ -z "${REPORT:-}" ]; then
        run "$name" "$flags" "$seed" </dev/null
        # Looked up again, not the file's last line: another table may
        # append to the same runs file meanwhile.
        found=$(run_line "$runs" "$name" "$seed")
      fi
      if [ -n "$found" ]; then
        lines+=("$found")
      fi
    done
    if [ "${#lines[@]}" -eq 0 ]; then
      continue
    fi
    label=$name
    if [ "${#lines[@]}" -eq 1 ] && [ "$seeds" -gt 1 ]; then
      label="$name (1 seed)"
    elif [ "${#lines[@]}" -lt "$seeds" ]; then
      label="$name (${#lines[@]} seeds)"
    fi
    "$row" "$label" "${lines[@]}"
  done <"$variants"
}
