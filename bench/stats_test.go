package bench

import (
	"slices"
	"testing"
	"time"
)

func ms(n ...int) []time.Duration {
	out := make([]time.Duration, len(n))
	for i, v := range n {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

// TestSummarize: percentiles are the lower of the two nearest ranks of
// the sorted latencies, whatever order they came in; the mean is exact.
func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name string
		lat  []time.Duration
		want Latency
	}{
		{"none", nil, Latency{}},
		{"one", ms(7), Latency{P50: 7, P99: 7, Mean: 7, N: 1}},
		{"two", ms(30, 10), Latency{P50: 10, P99: 10, Mean: 20, N: 2}},
		{"unsorted", ms(5, 1, 4, 2, 3), Latency{P50: 3, P99: 4, Mean: 3, N: 5}},
		{"tail", append(slices.Repeat(ms(1), 98), ms(200, 100)...), Latency{P50: 1, P99: 100, Mean: 3.98, N: 100}},
		{"sub-millisecond", []time.Duration{1500 * time.Microsecond, 500 * time.Microsecond}, Latency{P50: 0.5, P99: 0.5, Mean: 1, N: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarize(tc.lat); got != tc.want {
				t.Errorf("Summarize = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestHumanBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0.0 MiB"},
		{1 << 19, "0.5 MiB"},
		{3 << 20, "3.0 MiB"},
		{1<<30 - 1, "1024.0 MiB"},
		{1 << 30, "1.00 GiB"},
		{5 << 29, "2.50 GiB"},
	} {
		if got := HumanBytes(tc.n); got != tc.want {
			t.Errorf("HumanBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestParseVmHWM(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   int64
	}{
		{"Name:\tas2\nVmPeak:\t  900 kB\nVmHWM:\t   1234 kB\nVmRSS:\t 1000 kB\n", 1234 << 10},
		{"VmHWM: 0 kB", 0},
		{"Name:\tas2\n", 0},
		{"VmHWM:\tlots kB\n", 0},
	} {
		if got := parseVmHWM(tc.status); got != tc.want {
			t.Errorf("parseVmHWM(%q) = %d, want %d", tc.status, got, tc.want)
		}
	}
	if PeakRSS() < 0 {
		t.Error("negative peak RSS")
	}
}
