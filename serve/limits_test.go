package serve

import (
	"errors"
	"testing"

	"github.com/as2/as2/rank"
)

func TestLimitsValidate(t *testing.T) {
	for _, tc := range []struct {
		limit string
		set   func(*Limits)
		want  string
	}{
		{"max-body", func(l *Limits) { l.MaxBodyBytes = 0 }, "max-body 0: must be positive"},
		{"max-documents", func(l *Limits) { l.MaxDocuments = -1 }, "max-documents -1: must be positive"},
		{"max-text", func(l *Limits) { l.MaxTextBytes = 0 }, "max-text 0: must be positive"},
		{"max-tokens", func(l *Limits) { l.MaxTokens = 0 }, "max-tokens 0: must be positive"},
		{"concurrent", func(l *Limits) { l.Concurrent = 0 }, "concurrent 0: must be positive"},
		{"queue", func(l *Limits) { l.Queue = -1 }, "queue -1: must not be negative"},
	} {
		t.Run(tc.limit, func(t *testing.T) {
			l := DefaultLimits()
			tc.set(&l)
			err := l.Validate()
			var le *LimitError
			if !errors.As(err, &le) || le.Limit != tc.limit || err.Error() != tc.want {
				t.Errorf("Validate() = %v, want a *LimitError %q", err, tc.want)
			}
			// New refuses them too, naming the same limit.
			if _, err := New(map[string]rank.Ranker{"a": nil}, l); !errors.As(err, &le) || le.Limit != tc.limit {
				t.Errorf("New: %v, want a *LimitError for %s", err, tc.limit)
			}
		})
	}
	l := DefaultLimits()
	l.Queue, l.Timeout, l.QueueWait = 0, 0, 0
	if err := l.Validate(); err != nil {
		t.Errorf("no queue, no timeout: %v", err)
	}
}
