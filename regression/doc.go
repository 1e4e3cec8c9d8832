// Package regression is as2's reproduction system, after Anserini's
// regressions: every number in the docs' tables comes from a recorded run
// of a spec, and one runner reruns, checks and republishes them.
//
//   - specs/*.yaml: one file per group of runs (a table's rows), one spec
//     per row: the command (as2 invocations, or a `go test -run` for an
//     accuracy floor), the seeds, the expected metrics with tolerances, a
//     tier (quick, long, full; the unit tier is `go test ./...` itself) and
//     the expected minutes.
//   - records/NAME.json: the runs of spec NAME, one per seed (spec,
//     command, seed, metrics, date, machine, as2 version, minutes). A run is
//     written atomically as soon as it finishes, so a stopped run resumes.
//     Records imported from the results files that predate the runner say
//     where they were read (file, line, script, commit).
//   - tables/NAME.yaml: the views the docs show between
//     `<!-- regress:begin NAME -->` and `<!-- regress:end NAME -->`: cells
//     whose {SPEC:METRIC} are filled from the records.
//
// The command is `go run ./regression/cmd/regress` (list, run, check,
// docs, docs --check, tests). baselines.tsv, checked by TestBaselines in
// the quick tier, holds every rule-based ranker's exact scores:
//
//	AS2_TIER=quick go test ./regression -run TestBaselines -update
//
// rewrites it after an intended change.
package regression
