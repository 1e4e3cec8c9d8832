package kernel

import (
	"os"
	"testing"
)

// paths lists the kernel paths this CPU can run, lowest first, up to the
// one EnvVar allows: every test that compares against the generic path
// runs each of them.
func paths() []Path {
	var ps []Path
	for p := Generic; p <= active; p++ {
		ps = append(ps, p)
	}
	return ps
}

// forEachPath runs f once per path, with every kernel switched to it.
func forEachPath(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved := active
	defer setPath(saved)
	for _, p := range paths() {
		setPath(p)
		t.Run(p.String(), f)
	}
}

func TestMain(m *testing.M) {
	// Say which paths ran, since a CPU without AVX-512 silently skips it.
	os.Stderr.WriteString("kernel paths under test: " + Describe() + "\n")
	os.Exit(m.Run())
}

// TestParsePath: every name EnvVar takes, and a clear error for others.
func TestParsePath(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Path
		ok   bool
	}{
		{"generic", Generic, true}, {"AVX2", AVX2, true}, {" avx512 ", AVX512, true}, {"avx-512", AVX512, true},
		{"sse", Generic, false}, {"", Generic, false},
	} {
		got, err := parsePath(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parsePath(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestSetPathCapsAtCPU: a path above the CPU's best runs the best.
func TestSetPathCapsAtCPU(t *testing.T) {
	saved := active
	defer setPath(saved)
	setPath(AVX512)
	if Active() != cpuFeatures.best() {
		t.Fatalf("setPath(avx512) on a CPU whose best is %v: active %v", cpuFeatures.best(), Active())
	}
	setPath(Generic)
	if HasAVX2FMA || HasAVX512 || Describe()[:7] != "generic" {
		t.Fatalf("generic path: HasAVX2FMA %v HasAVX512 %v, %q", HasAVX2FMA, HasAVX512, Describe())
	}
}
