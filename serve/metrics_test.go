package serve

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// gauge reads one unlabelled metric from GET /metrics.
func gauge(t *testing.T, base, name string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(raw)
	if m == nil {
		t.Fatalf("/metrics has no %s:\n%s", name, raw)
	}
	return string(m[1])
}

// TestInFlightAndQueueGauges holds requests in a ranker and checks that
// /metrics counts them in flight and queued, then back to zero.
func TestInFlightAndQueueGauges(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 8)
	held := rank.Func(func(ctx context.Context, q *dataset.Question) ([]float64, error) {
		entered <- struct{}{}
		select {
		case <-release:
			return make([]float64, len(q.Candidates)), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	limits := DefaultLimits()
	limits.Concurrent, limits.Queue, limits.QueueWait, limits.Timeout = 2, 3, 20*time.Second, 20*time.Second
	s, err := New(map[string]rank.Ranker{"held": held}, limits)
	if err != nil {
		t.Fatal(err)
	}
	base, stop := startServer(t, s)
	defer stop()

	// waitFor polls the two gauges until they read in and queued.
	waitFor := func(in, queued int) {
		t.Helper()
		want := fmt.Sprintf("%d in flight, %d queued", in, queued)
		got := ""
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			got = fmt.Sprintf("%s in flight, %s queued", gauge(t, base, "as2_requests_in_flight"), gauge(t, base, "as2_requests_queued"))
			if got == want {
				return
			}
		}
		t.Fatalf("/metrics says %s, want %s", got, want)
	}
	waitFor(0, 0)
	const sent = 4 // 2 admitted, 2 queued
	codes := make(chan int, sent)
	for range sent {
		go func() {
			resp, err := http.Post(base+"/v1/rerank", "application/json", strings.NewReader(`{"model": "held", "query": "q", "documents": ["a"]}`))
			if err != nil {
				codes <- 0
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	<-entered
	<-entered
	waitFor(2, 2)
	close(release)
	for range sent {
		if c := <-codes; c != http.StatusOK {
			t.Errorf("a held request got %d, want 200", c)
		}
	}
	waitFor(0, 0)
}
