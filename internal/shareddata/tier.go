package shareddata

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// Test tiers, cheapest first. The unit tier is `go test ./...` itself; a
// test of a higher tier (an accuracy floor, a long training check) calls
// Tier at its top and runs only when $AS2_TIER names its tier or a higher
// one. The regression runner sets it: `go run ./regression/cmd/regress run
// --tier quick` runs the quick tier's tests, once, as CI does.
const (
	Unit  = "unit"
	Quick = "quick"
	Long  = "long"
	Full  = "full"
)

// TierEnv is the variable that enables the tiers above unit.
const TierEnv = "AS2_TIER"

var tierRank = map[string]int{Unit: 0, Quick: 1, Long: 2, Full: 3}

// SkipTierPrefix and SkipDataPrefix start the messages of the skips Tier,
// Dir and File make, so that a summary of `go test -json` can count them.
const (
	SkipTierPrefix = "tier "
	SkipDataPrefix = "no shared data: "
)

// Tier skips t unless $AS2_TIER enables tier. An unknown $AS2_TIER fails
// the test rather than silently running nothing.
func Tier(t testing.TB, tier string) {
	t.Helper()
	want, ok := tierRank[tier]
	if !ok {
		t.Fatalf("shareddata.Tier(%q): want unit, quick, long or full", tier)
	}
	env := os.Getenv(TierEnv)
	if env == "" {
		env = Unit
	}
	have, ok := tierRank[env]
	if !ok {
		t.Fatalf("%s=%s: want unit, quick, long or full", TierEnv, env)
	}
	if have < want {
		t.Skip(TierSkipMessage(tier))
	}
}

// TierSkipMessage is the message of a test skipped for its tier.
func TierSkipMessage(tier string) string {
	return fmt.Sprintf("%s%s: an accuracy floor or long check, run by `go run ./regression/cmd/regress run --tier %s` (or %s=%s go test -run ...)", SkipTierPrefix, tier, tier, TierEnv, tier)
}

// SkipTier returns the tier that a line of `go test -v` output names, when
// the line is a test's TierSkipMessage ("    x_test.go:9: tier quick: ..."),
// so that the summaries of a run read the message in one place.
func SkipTier(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, ": "+SkipTierPrefix)
	if !ok {
		return "", false
	}
	tier, _, ok := strings.Cut(rest, ":")
	if _, known := tierRank[tier]; !ok || !known {
		return "", false
	}
	return tier, true
}
