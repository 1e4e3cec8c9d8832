package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/as2/as2/evaluation"
	"github.com/as2/as2/rank"
	"github.com/as2/as2/serve"
	"github.com/as2/as2/text"
)

func newBenchServeCmd() *cobra.Command {
	var (
		data           datasetFlags
		ranker         rankerFlags
		docs, requests int
		clients        []int
		format         string
		docTokens      int
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Latency and throughput of POST /v1/rerank under concurrent load on loopback",
		Long: `Start the as2 service on a loopback port with one ranker, and send it
--requests rerank requests of --documents candidates each (taken in order from
the questions of the dataset, padded with other questions' candidates), from
each number of concurrent clients in --clients. Reports p50 and p99 latency and
requests per second, requests refused with 429 (the server's admission
control, at its default limits), and the process's peak RSS (server and load
generator together). --doc-tokens pads every document to about that many
tokens: --documents 1000 --doc-tokens 100 sends requests of the largest size
the default limits admit. Nothing leaves the machine.`,
		Example: `  as2 bench serve --model m.as2 --dataset wikiqa --documents 100 --clients 1,2,4,8`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if data.name == "" {
				data.name = "wikiqa"
			}
			if docs < 1 || requests < 1 {
				return fmt.Errorf("--documents and --requests must be positive")
			}
			all, _, _, err := data.load("", "")
			if err != nil {
				return err
			}
			r, err := ranker.build(all)
			if err != nil {
				return err
			}
			// Request bodies: each question's candidates, then other
			// questions' until there are docs of them.
			var pool []string
			for _, q := range all {
				for _, c := range q.Candidates {
					pool = append(pool, c.Text)
				}
			}
			var bodies [][]byte
			for i, q := range all {
				req := serve.RerankRequest{Model: "m", Query: q.Text}
				for _, c := range q.Candidates {
					req.Documents = append(req.Documents, c.Text)
				}
				for j := i * 7; len(req.Documents) < docs; j++ {
					req.Documents = append(req.Documents, pool[j%len(pool)])
				}
				req.Documents = req.Documents[:docs]
				for k, d := range req.Documents {
					for n := len(text.Tokenize(d)); docTokens > 0 && n < docTokens; n = len(text.Tokenize(d)) {
						d += " " + pool[(i+k+n)%len(pool)]
					}
					// Joined tokens may tokenise into more: cut until they do not.
					for cut := docTokens; docTokens > 0 && (cut == docTokens || len(text.Tokenize(d)) > docTokens); cut-- {
						d = strings.Join(text.Tokenize(d)[:cut], " ")
					}
					req.Documents[k] = d
				}
				b, _ := json.Marshal(req)
				bodies = append(bodies, b)
			}
			limits := serve.DefaultLimits()
			limits.MaxDocuments = max(limits.MaxDocuments, docs)
			limits.MaxBodyBytes = max(limits.MaxBodyBytes, int64(64*docs*1024))
			limits.Queue = max(limits.Queue, slices.Max(clients)) // clients wait rather than being refused
			srv, err := serve.New(map[string]rank.Ranker{"m": r}, limits)
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				return err
			}
			hs := &http.Server{Handler: srv}
			go hs.Serve(ln)
			defer hs.Shutdown(context.Background())
			url := "http://" + ln.Addr().String() + "/v1/rerank"
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			type row struct {
				Clients  int     `json:"clients"`
				Requests int     `json:"requests"`
				P50ms    float64 `json:"p50_ms"`
				P99ms    float64 `json:"p99_ms"`
				RPS      float64 `json:"requests_per_second"`
				PairsPS  float64 `json:"pairs_per_second"`
				Refused  int     `json:"refused_429"`
				PeakRSS  int64   `json:"peak_rss_mib"`
			}
			var rows []row
			for _, n := range clients {
				if n < 1 {
					return fmt.Errorf("--clients: %d is not positive", n)
				}
				lat := make([][]time.Duration, n)
				errs := make([]error, n)
				var refused atomic.Int64
				var wg sync.WaitGroup
				start := time.Now()
				for c := 0; c < n; c++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := c; i < requests; i += n {
							t := time.Now()
							resp, err := client.Post(url, "application/json", bytes.NewReader(bodies[i%len(bodies)]))
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
					return err
				}
				var all []time.Duration
				for _, l := range lat {
					all = append(all, l...)
				}
				sort.Slice(all, func(a, b int) bool { return all[a] < all[b] })
				pct := func(p float64) float64 { return millis(evaluation.Percentile(all, p)) }
				rows = append(rows, row{Clients: n, Requests: len(all), P50ms: pct(0.5), P99ms: pct(0.99),
					RPS: float64(len(all)) / wall.Seconds(), PairsPS: float64(len(all)*docs) / wall.Seconds(),
					Refused: int(refused.Load()), PeakRSS: peakRSS() >> 20})
			}
			w := cmd.OutOrStdout()
			if format == "json" {
				return json.NewEncoder(w).Encode(map[string]any{"machine": machine(), "ranker": ranker.label(), "documents": docs, "rows": rows})
			}
			fmt.Fprintf(w, "POST /v1/rerank, %d documents per request, ranker %s, on %s\n", docs, ranker.label(), machine())
			fmt.Fprintf(w, "%8s %9s %9s %9s %10s %12s %8s %14s\n", "clients", "requests", "p50 ms", "p99 ms", "req/s", "pairs/s", "429s", "peak RSS MiB")
			for _, r := range rows {
				fmt.Fprintf(w, "%8d %9d %9.2f %9.2f %10.1f %12.0f %8d %14d\n", r.Clients, r.Requests, r.P50ms, r.P99ms, r.RPS, r.PairsPS, r.Refused, r.PeakRSS)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	data.register(fs, "all")
	ranker.register(fs)
	fs.IntVar(&docs, "documents", 100, "candidates per request")
	fs.IntVar(&requests, "requests", 300, "requests per client count")
	fs.IntSliceVar(&clients, "clients", []int{1, 2, 4, 8}, "concurrent clients, comma-separated")
	fs.StringVar(&format, "format", "table", "output: table or json")
	fs.IntVar(&docTokens, "doc-tokens", 0, "pad or cut every document to this many tokens (0: as the dataset has them)")
	return cmd
}

// peakRSS is the process's peak resident set (VmHWM) in bytes, 0 where
// /proc is absent.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
