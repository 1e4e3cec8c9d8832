package bench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/evaluation/tradeoff"
)

// TestWrite: every report prints as a table naming the machine, as JSON
// that reads back, and refuses another format.
func TestWrite(t *testing.T) {
	res := Result{Benchmark: "infer", Machine: "m1", Settings: "s", Pairs: 100, Seconds: 2, PairsPerSec: 50, P50ms: 1.5, P99ms: 3}
	for _, tc := range []struct {
		name   string
		write  func(b *bytes.Buffer, format string) error
		table  []string
		decode any
	}{
		{"result", func(b *bytes.Buffer, f string) error { return res.Write(b, f) },
			[]string{"infer on m1\n  settings: s\n  100 pairs in 2.00s: 50 pairs/s; per question p50 1.50 ms, p99 3.00 ms\n"}, &Result{}},
		{"cascade", func(b *bytes.Buffer, f string) error {
			return CascadeReport{Machine: "m1", First: "bm25", Last: "m.as2", Data: "wikiqa test", Questions: 2,
				Points: []tradeoff.Point{{K: 0, P1: 0.5, MAP: 0.6, Latency: 2 * time.Millisecond, Candidate: 10}, {K: 2, P1: 0.25, MAP: 0.5, Latency: time.Millisecond, Candidate: 2}}}.Write(b, f)
		}, []string{"bm25 → m.as2, wikiqa test (2 questions), on m1", "all", "50.0%", "0.50x"}, &CascadeReport{}},
		{"has", func(b *bytes.Buffer, f string) error {
			return HASReport{Machine: "m1", Data: "d", Questions: 2, Candidates: 5, Pool: &PoolMemory{Sources: []string{"a:b"}, Answers: 3, Words: 9},
				Rows: []HASRow{{Method: "HAS (store, bits)", MAP: 0.5, PoolBytes: 3 << 30, BytesPerAnswer: 1 << 30}, {Method: "HAS (recompute)"}}}.Write(b, f)
		}, []string{"d: 2 questions, 2.5 candidates each, on m1", "pool: 3 distinct answers, 9 words (a:b)", "3.00 GiB", "HAS (recompute)"}, &HASReport{}},
		{"index", func(b *bytes.Buffer, f string) error {
			return IndexReport{Machine: "m1", Size: 10, Real: 4, K: 3, Rows: []IndexRow{{Index: "weaviate", MemoryBytes: -1}, {Index: "flat", MemoryBytes: 1 << 20, Recall: 1}}}.Write(b, f)
		}, []string{"answer indexes on m1", "4 real, 6 padded", "recall@3", "server", "1.0 MiB", "1.0000"}, &IndexReport{}},
		{"serve", func(b *bytes.Buffer, f string) error {
			return ServeReport{Machine: "m1", Ranker: "bm25", Documents: 7, Rows: []ServeRow{{Clients: 2, Requests: 9}}}.Write(b, f)
		}, []string{"POST /v1/rerank, 7 documents per request, ranker bm25, on m1", "peak RSS MiB"}, &ServeReport{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b, "table"); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.table {
				if !strings.Contains(b.String(), want) {
					t.Errorf("table lacks %q:\n%s", want, b.String())
				}
			}
			b.Reset()
			if err := tc.write(&b, "json"); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b.Bytes(), tc.decode); err != nil || !strings.Contains(b.String(), `"machine":"m1"`) {
				t.Errorf("json %v: %s", err, b.String())
			}
			if err := tc.write(&b, "csv"); err == nil || !strings.Contains(err.Error(), `format "csv"`) {
				t.Errorf("csv: %v", err)
			}
		})
	}
}

// TestMachine names the kernels every report's header carries.
func TestMachine(t *testing.T) {
	if m := Machine(); !strings.Contains(m, Kernels()) || !strings.Contains(m, "cores") {
		t.Errorf("machine %q lacks the kernels %q", m, Kernels())
	}
}

func TestTrainResult(t *testing.T) {
	r := TrainResult(300, 7, 2*time.Second)
	if r.Benchmark != "train" || r.Pairs != 300 || r.Params != 7 || r.Seconds != 2 || r.PairsPerSec != 150 || r.Machine != Machine() {
		t.Errorf("%+v", r)
	}
	if r := TrainResult(0, 1, 0); r.PairsPerSec != 0 {
		t.Errorf("no time: %+v", r)
	}
}

// TestCheckInfer: each bad setting is named with the caller's prefix.
func TestCheckInfer(t *testing.T) {
	for _, tc := range []struct {
		repeat, clients int
		format, want    string
	}{
		{1, 1, "table", ""},
		{3, 2, "json", ""},
		{0, 1, "table", "--repeat 0: must be at least 1"},
		{1, 0, "table", "--concurrency 0: must be at least 1"},
		{1, 1, "csv", `--format "csv": want table or json`},
	} {
		err := CheckInfer("--", tc.repeat, tc.clients, tc.format)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("CheckInfer(%d, %d, %q): %v, want %q", tc.repeat, tc.clients, tc.format, err, tc.want)
		}
	}
}
