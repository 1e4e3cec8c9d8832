package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
)

// TestDrainNotice checks that Run tells a WithDrainNotice context, once it
// serves, how long its shutdown may take (the as2 command waits that long
// after a signal instead of its short grace), and that a plain context
// gets no call.
func TestDrainNotice(t *testing.T) {
	wo, _ := rank.New("wo+rr", rank.DefaultOptions())
	s, err := New(map[string]rank.Ranker{"wo": wo}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultRunOptions()
	o.Drain, o.Grace = 30*time.Millisecond, 7*time.Second
	for _, tc := range []struct {
		name   string
		notice bool
	}{{"with a notice", true}, {"without", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			got := make(chan time.Duration, 2)
			if tc.notice {
				ctx = WithDrainNotice(ctx, func(d time.Duration) { got <- d })
			}
			done := make(chan error, 1)
			go func() { done <- s.Run(ctx, ln, o) }()
			if tc.notice {
				select {
				case d := <-got:
					if d != o.Drain+o.Grace {
						t.Errorf("notice %v, want --drain + --grace = %v", d, o.Drain+o.Grace)
					}
				case <-time.After(5 * time.Second):
					t.Fatal("Run serves but gave no drain notice")
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(got) != 0 {
				t.Errorf("%d more notices", len(got))
			}
		})
	}
}

// TestGraceEnds checks that Run, when its grace ends with a request still
// being scored, cuts it off and says so with ErrGraceEnded.
func TestGraceEnds(t *testing.T) {
	entered := make(chan struct{}, 1)
	cutOff := make(chan struct{})
	held := rank.Func(func(ctx context.Context, q *dataset.Question) ([]float64, error) {
		entered <- struct{}{}
		<-ctx.Done() // the request's context ends when its connection is cut
		close(cutOff)
		return nil, ctx.Err()
	})
	s, err := New(map[string]rank.Ranker{"held": held}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultRunOptions()
	o.Drain, o.Grace = 0, 100*time.Millisecond
	o.Log = io.Discard
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base, done := runServer(t, ctx, s, o)
	go http.Post(base+"/v1/rerank", "application/json", strings.NewReader(`{"model": "held", "query": "q", "documents": ["a"]}`))
	<-entered
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, ErrGraceEnded) {
			t.Fatalf("Run: %v, want ErrGraceEnded", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return 10 s after its grace of 100 ms")
	}
	select {
	case <-cutOff:
	case <-time.After(5 * time.Second): // the default --timeout is 10 s
		t.Fatal("the request still runs after Run returned")
	}
}
