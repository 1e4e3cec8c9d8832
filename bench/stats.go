package bench

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/as2/as2/evaluation"
)

// Millis is d in milliseconds, to the microsecond, as every report gives
// latencies.
func Millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Latency summarises latencies in milliseconds.
type Latency struct {
	P50, P99, Mean float64
	N              int
}

// Summarize sorts lat in place and summarises it; the percentiles are
// evaluation.Percentile's (the lower of the two nearest ranks), as every
// as2 benchmark reports them. No latencies give zeros.
func Summarize(lat []time.Duration) Latency {
	if len(lat) == 0 {
		return Latency{}
	}
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	return Latency{P50: Millis(evaluation.Percentile(lat, 0.5)), P99: Millis(evaluation.Percentile(lat, 0.99)),
		Mean: Millis(sum / time.Duration(len(lat))), N: len(lat)}
}

// HumanBytes writes n in MiB, or GiB from 1 GiB.
func HumanBytes(n int64) string {
	if n >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// HeapBytes is the Go heap in use after a collection: the difference
// across a build is what the built value holds.
func HeapBytes() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// PeakRSS is the process's peak resident set (VmHWM) in bytes, 0 where
// /proc is absent.
func PeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return parseVmHWM(string(b))
}

// parseVmHWM reads VmHWM (in kB) from the text of /proc/self/status.
func parseVmHWM(status string) int64 {
	for line := range strings.SplitSeq(status, "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
