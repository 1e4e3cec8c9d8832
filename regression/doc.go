// Package regression holds as2's regression table, in the manner of
// Anserini's: baselines.tsv lists, for every rule-based ranker on every
// benchmark as2 ships readers for, the exact scores it reaches, and the test
// in this package recomputes each row on the real data in ../shared/data
// and fails on any difference in the fourth decimal. A change that moves a
// number must change the table in the same commit, where a reviewer sees it.
//
// After an intended change, regenerate the table with
//
//	go test ./regression -run TestBaselines -update
//
// and explain the moved numbers in the commit message.
package regression
