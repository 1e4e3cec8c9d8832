package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/as2/as2/dataset"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/serve"
	"github.com/as2/as2/text"
)

// ServeOptions say what as2 bench serve sends.
type ServeOptions struct {
	Documents int   // candidates per request
	Requests  int   // requests per client count
	Clients   []int // concurrent clients: one row each
	// DocTokens pads or cuts every document to about this many tokens
	// (0: as the questions have them).
	DocTokens int
}

// Check refuses bad options before anything is loaded. Each error names
// the option as prefix+name, name being as2 bench serve's flag ("--"
// prefix there, "" for a Go caller).
func (o ServeOptions) Check(prefix string) error {
	switch {
	case o.Documents < 1:
		return fmt.Errorf("%sdocuments %d: must be at least 1", prefix, o.Documents)
	case o.Requests < 1:
		return fmt.Errorf("%srequests %d: must be at least 1", prefix, o.Requests)
	case len(o.Clients) == 0:
		return fmt.Errorf("%sclients: give at least one client count", prefix)
	}
	for _, n := range o.Clients {
		if n < 1 {
			return fmt.Errorf("%sclients %d: must be at least 1", prefix, n)
		}
	}
	return nil
}

// ServeRow is the service measured under one number of clients.
type ServeRow struct {
	Clients  int     `json:"clients"`
	Requests int     `json:"requests"`
	P50ms    float64 `json:"p50_ms"`
	P99ms    float64 `json:"p99_ms"`
	RPS      float64 `json:"requests_per_second"`
	PairsPS  float64 `json:"pairs_per_second"`
	Refused  int     `json:"refused_429"`
	PeakRSS  int64   `json:"peak_rss_mib"`
}

// ServeReport is as2 bench serve.
type ServeReport struct {
	Machine   string     `json:"machine"`
	Ranker    string     `json:"ranker"`
	Documents int        `json:"documents"`
	Rows      []ServeRow `json:"rows"`
}

// rerankBodies returns one POST /v1/rerank body (for model "m") for each
// question of qs: its candidates, then other questions' until there are
// docs of them, each padded with further candidates or cut to about
// docTokens tokens when docTokens > 0.
func rerankBodies(qs []dataset.Question, docs, docTokens int) ([][]byte, error) {
	var pool []string
	for _, q := range qs {
		for _, c := range q.Candidates {
			pool = append(pool, c.Text)
		}
	}
	if len(pool) == 0 || docs < 1 {
		return nil, fmt.Errorf("%d candidates, %d documents a request: want at least one of each", len(pool), docs)
	}
	var bodies [][]byte
	for i, q := range qs {
		req := serve.RerankRequest{Model: "m", Query: q.Text}
		for _, c := range q.Candidates {
			req.Documents = append(req.Documents, c.Text)
		}
		for j := i * 7; len(req.Documents) < docs; j++ {
			req.Documents = append(req.Documents, pool[j%len(pool)])
		}
		req.Documents = req.Documents[:docs]
		if docTokens > 0 {
			for k, d := range req.Documents {
				req.Documents[k] = fitTokens(d, docTokens, func(n int) string { return pool[(i+k+n)%len(pool)] })
			}
		}
		b, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, b)
	}
	return bodies, nil
}

// fitTokens pads d with more(tokens so far) until it has n tokens, then
// cuts it to n. Joined tokens may tokenise into more (a split "can't"),
// so it cuts until they do not.
func fitTokens(d string, n int, more func(int) string) string {
	for have := len(text.Tokenize(d)); have < n; {
		d += " " + more(have)
		if now := len(text.Tokenize(d)); now > have {
			have = now
		} else {
			break // more added nothing: take what there is
		}
	}
	for cut := n; cut > 0; cut-- {
		toks := text.Tokenize(d)
		if len(toks) <= n && cut < n {
			break
		}
		d = strings.Join(toks[:min(cut, len(toks))], " ")
	}
	return d
}

// Serve starts the service on a loopback port with r as model "m" (its
// default limits, widened to admit the requests and to queue every client
// rather than refuse it) and sends it rerank requests built from qs for
// each number of clients; label names r in the report.
func Serve(ctx context.Context, r rank.Ranker, label string, qs []dataset.Question, o ServeOptions) (ServeReport, error) {
	if err := o.Check(""); err != nil {
		return ServeReport{}, err
	}
	bodies, err := rerankBodies(qs, o.Documents, o.DocTokens)
	if err != nil {
		return ServeReport{}, err
	}
	limits := serve.DefaultLimits()
	limits.MaxDocuments = max(limits.MaxDocuments, o.Documents)
	limits.MaxBodyBytes = max(limits.MaxBodyBytes, int64(64*o.Documents*1024))
	limits.Queue = max(limits.Queue, slices.Max(o.Clients))
	srv, err := serve.New(map[string]rank.Ranker{"m": r}, limits)
	if err != nil {
		return ServeReport{}, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return ServeReport{}, err
	}
	hs := &http.Server{Handler: srv}
	go hs.Serve(ln)
	defer hs.Shutdown(context.Background())
	url := "http://" + ln.Addr().String() + "/v1/rerank"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	rep := ServeReport{Machine: Machine(), Ranker: label, Documents: o.Documents}
	for _, n := range o.Clients {
		row, err := load(ctx, client, url, bodies, n, o.Requests)
		if err != nil {
			return ServeReport{}, fmt.Errorf("%d clients: %w", n, err)
		}
		row.PairsPS = row.RPS * float64(o.Documents)
		rep.Rows = append(rep.Rows, row)
	}
	return rep, nil
}

// load sends requests bodies (round robin) to url from n concurrent
// clients: client c sends requests c, c+n, ... Refused requests (429)
// are counted, not timed; any other failure ends the run.
func load(ctx context.Context, client *http.Client, url string, bodies [][]byte, n, requests int) (ServeRow, error) {
	lat := make([][]time.Duration, n)
	errs := make([]error, n)
	var refused atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for c := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := c; i < requests; i += n {
				t := time.Now()
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(bodies[i%len(bodies)]))
				if err != nil {
					errs[c] = err
					return
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					errs[c] = err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusTooManyRequests {
					refused.Add(1)
					continue
				}
				if resp.StatusCode != http.StatusOK {
					errs[c] = fmt.Errorf("status %s", resp.Status)
					return
				}
				lat[c] = append(lat[c], time.Since(t))
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	if err := errors.Join(errs...); err != nil {
		return ServeRow{}, err
	}
	all := slices.Concat(lat...)
	s := Summarize(all)
	return ServeRow{Clients: n, Requests: len(all), P50ms: s.P50, P99ms: s.P99, RPS: float64(len(all)) / wall.Seconds(),
		Refused: int(refused.Load()), PeakRSS: PeakRSS() >> 20}, nil
}

// Write prints r in format (see Formats).
func (r ServeReport) Write(w io.Writer, format string) error {
	return writeReport(w, format, r, r.table)
}

// table prints r for people.
func (r ServeReport) table(w io.Writer) error {
	fmt.Fprintf(w, "POST /v1/rerank, %d documents per request, ranker %s, on %s\n", r.Documents, r.Ranker, r.Machine)
	fmt.Fprintf(w, "%8s %9s %9s %9s %10s %12s %8s %14s\n", "clients", "requests", "p50 ms", "p99 ms", "req/s", "pairs/s", "429s", "peak RSS MiB")
	for _, row := range r.Rows {
		if _, err := fmt.Fprintf(w, "%8d %9d %9.2f %9.2f %10.1f %12.0f %8d %14d\n", row.Clients, row.Requests, row.P50ms, row.P99ms, row.RPS, row.PairsPS, row.Refused, row.PeakRSS); err != nil {
			return err
		}
	}
	return nil
}
