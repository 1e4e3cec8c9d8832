package shareddata

import (
	"strings"
	"testing"
)

func TestTier(t *testing.T) {
	for _, tc := range []struct {
		env, tier string
		runs      bool
	}{
		{"", Unit, true},
		{"", Quick, false},
		{"unit", Quick, false},
		{"quick", Quick, true},
		{"quick", Long, false},
		{"long", Quick, true},
		{"full", Long, true},
	} {
		t.Run(tc.env+"/"+tc.tier, func(t *testing.T) {
			t.Setenv(TierEnv, tc.env)
			ran := false
			// A subtest, so that its skip is observed here.
			t.Run("inner", func(t *testing.T) {
				Tier(t, tc.tier)
				ran = true
			})
			if ran != tc.runs {
				t.Errorf("%s=%q, tier %s: ran %v, want %v", TierEnv, tc.env, tc.tier, ran, tc.runs)
			}
		})
	}
}

func TestTierSkipMessage(t *testing.T) {
	m := TierSkipMessage(Quick)
	if !strings.HasPrefix(m, SkipTierPrefix+"quick") || !strings.Contains(m, "regress run --tier quick") {
		t.Errorf("message %q: want the tier and the regress command", m)
	}
}

func TestSkipTier(t *testing.T) {
	for _, tc := range []struct {
		line, tier string
		ok         bool
	}{
		{"    x_test.go:9: " + TierSkipMessage(Quick), Quick, true},
		{"    x_test.go:9: " + TierSkipMessage(Full), Full, true},
		{"    x_test.go:9: tier long: an accuracy floor", Long, true},
		{"    x_test.go:9: tier huge: an accuracy floor", "", false},
		{"    x_test.go:9: " + SkipDataPrefix + "AS2_DATA=/x not found", "", false},
		{"--- SKIP: TestTier (0.00s)", "", false},
	} {
		if tier, ok := SkipTier(tc.line); tier != tc.tier || ok != tc.ok {
			t.Errorf("SkipTier(%q) = %q, %v; want %q, %v", tc.line, tier, ok, tc.tier, tc.ok)
		}
	}
}
