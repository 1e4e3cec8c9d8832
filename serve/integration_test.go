package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/as2/as2/encoder/encodertest"
	"github.com/as2/as2/model/cosinet"
	"github.com/as2/as2/rank"
)

// Integration tests: the real server on a loopback port (Run, as as2
// serve runs it), real clients, bounded loops.

// runServer starts s.Run on a loopback port with ctx and returns its base
// URL and the channel Run's result arrives on.
func runServer(t *testing.T, ctx context.Context, s *Server, o RunOptions) (string, chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln, o) }()
	return "http://" + ln.Addr().String(), done
}

func rerankBody(model string, docs []string) []byte {
	b, _ := json.Marshal(RerankRequest{Model: model, Query: "who wrote hamlet?", Documents: docs})
	return b
}

// TestSIGTERMUnderLoad sends the process SIGTERM, through the signal path
// as2 serve uses (signal.NotifyContext), while 20 clients send requests;
// the clients stop starting new ones once /readyz fails, as a load
// balancer would. No request may fail, and Run must return cleanly.
func TestSIGTERMUnderLoad(t *testing.T) {
	wo, _ := rank.New("wo+rr", rank.DefaultOptions())
	limits := DefaultLimits()
	limits.Concurrent, limits.Queue = 4, 64
	s, err := New(map[string]rank.Ranker{"wo": wo}, limits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	o := DefaultRunOptions()
	o.Drain, o.Grace = 400*time.Millisecond, 5*time.Second
	base, done := runServer(t, ctx, s, o)
	body := rerankBody("wo", []string{"Hamlet is a tragedy.", "Shakespeare wrote Hamlet around 1600.", "It is set in Denmark."})

	var ready atomic.Bool
	ready.Store(true)
	watcherDone := make(chan struct{})
	go func() { // the load balancer's health check
		defer close(watcherDone)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			resp, err := http.Get(base + "/readyz")
			if err == nil {
				resp.Body.Close()
			}
			if err != nil || resp.StatusCode != 200 {
				ready.Store(false)
				return
			}
		}
	}()
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: 10 * time.Second}
	for c := 0; c < 20; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5000 && ready.Load(); i++ {
				resp, err := client.Post(base+"/v1/rerank", "application/json", bytes.NewReader(body))
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, resp.Status)
					continue
				}
				ok.Add(1)
			}
		}()
	}
	time.Sleep(300 * time.Millisecond)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	<-watcherDone
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
	t.Logf("%d requests answered 200, %d failed", ok.Load(), failed.Load())
	if failed.Load() != 0 || ok.Load() == 0 {
		t.Fatalf("%d failed requests (first: %v), %d succeeded", failed.Load(), firstErr.Load(), ok.Load())
	}
}

// slowCosinet is an untrained Cosinet over the tiny test vectors, as wide
// as Cosinet allows (4,096 filters a side), so that 1,000 documents of 100
// tokens take seconds on two cores: the real model with its real
// cancellation, only slow. It has no candidate RNN, so it is scored in
// chunks of candidates, each checking the deadline.
func slowCosinet(t testing.TB) rank.Ranker {
	m, err := cosinet.New(cosinet.Hyper{Filters: 4096, Kernel: 5, Relatedness: true, ExactMatch: true}, encodertest.Static[float32](t), 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func thousandDocs() []string {
	docs := make([]string, 1000)
	for i := range docs {
		docs[i] = strings.Repeat("Shakespeare wrote Hamlet in Denmark. ", 16) + strconv.Itoa(i) // 97 tokens
	}
	return docs
}

// TestDeadlineStopsScoring: a 1,000-document request with --timeout a
// quarter of the time it needs gets 504 long before the model would
// finish: within the deadline plus a second of slack (a busy machine delays the check between candidates, so
// the bound is about stopping, not speed), and in under half the time the
// whole request takes.
func TestDeadlineStopsScoring(t *testing.T) {
	slow := slowCosinet(t)
	limits := DefaultLimits()
	s, err := New(map[string]rank.Ranker{"slow": slow}, limits)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := DefaultRunOptions()
	o.Drain = 0
	body := rerankBody("slow", thousandDocs())
	// Without a deadline, for the record: how long the model needs.
	start := time.Now()
	base, done := runServer(t, ctx, s, o)
	code, _ := postBytes(t, base+"/v1/rerank", body)
	full := time.Since(start)
	if code != 200 {
		t.Fatalf("without a deadline: %d", code)
	}
	// The 504 cannot come before the deadline, so "in under half the
	// time" needs a deadline well under half of it: a quarter, which
	// leaves a quarter for the check between candidates.
	if full < 200*time.Millisecond {
		t.Skipf("the model took only %v: too fast to test the deadline on this machine", full)
	}
	limits.Timeout = full / 4
	s2, err := New(map[string]rank.Ranker{"slow": slow}, limits)
	if err != nil {
		t.Fatal(err)
	}
	base2, done2 := runServer(t, ctx, s2, o)
	for i := 0; i < 3; i++ {
		start = time.Now()
		code, out := postBytes(t, base2+"/v1/rerank", body)
		took := time.Since(start)
		_, ecode := errorOf(out)
		t.Logf("without a deadline %v; with %v: %d %s after %v", full, limits.Timeout, code, ecode, took)
		bound := min(limits.Timeout+time.Second, full/2)
		if code != http.StatusGatewayTimeout || ecode != CodeDeadlineExceeded || took > bound {
			t.Fatalf("%d %s after %v, want 504 within %v", code, ecode, took, bound)
		}
	}
	cancel()
	<-done
	<-done2
}

func postBytes(t *testing.T, url string, body []byte) (int, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// rss is the process's resident set in bytes (0 where /proc is absent).
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// rssBudget is what the test process's resident set may grow by while 50
// clients send maximum-size requests at once: the server's work and the
// clients' bodies. (Growth, not the total: earlier tests of the package
// leave memory the runtime does not hand back at once.)
const rssBudget = 512 << 20

// TestOverloadIsRefused: 50 concurrent maximum-size requests (1,000
// documents, the whole token budget) get 200 or 429 with Retry-After,
// nothing else, and the process's RSS stays under rssBudget.
func TestOverloadIsRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 50 maximum-size requests")
	}
	// The resident set is measured in a process of its own: earlier tests
	// of the package leave a heap the runtime keeps, which the load would
	// then partly reuse and partly add to.
	if os.Getenv("AS2_OVERLOAD_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOverloadIsRefused$", "-test.v")
		cmd.Env = append(os.Environ(), "AS2_OVERLOAD_CHILD=1")
		out, err := cmd.CombinedOutput()
		t.Logf("%s", out)
		if err != nil {
			t.Fatalf("the test in its own process: %v", err)
		}
		return
	}
	m, err := cosinet.New(cosinet.Hyper{Filters: 50, Kernel: 3, Relatedness: true, ExactMatch: true, RNN: "birnn"}, encodertest.Static[float32](t), 1)
	if err != nil {
		t.Fatal(err)
	}
	limits := DefaultLimits()
	s, _ := New(map[string]rank.Ranker{"m": m}, limits)
	ctx, cancel := context.WithCancel(context.Background())
	o := DefaultRunOptions()
	o.Drain = 0
	base, done := runServer(t, ctx, s, o)
	// 1,000 documents of 100 tokens: the default token budget exactly.
	doc := strings.TrimSpace(strings.Repeat("shakespeare wrote hamlet in denmark . ", 16)) + " the end of it"
	docs := make([]string, limits.MaxDocuments)
	for i := range docs {
		docs[i] = doc
	}
	body := rerankBody("m", docs)
	debug.FreeOSMemory() // what earlier tests left
	before := rss()
	var peak atomic.Int64
	stopSampling := make(chan struct{})
	go func() {
		for {
			if r := rss(); r > peak.Load() {
				peak.Store(r)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	codes := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for c := 0; c < 50; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(base+"/v1/rerank", "application/json", bytes.NewReader(body))
			code := -1
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				code = resp.StatusCode
				if code == 429 && resp.Header.Get("Retry-After") == "" {
					code = -2
				}
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(stopSampling)
	cancel()
	<-done
	grew := peak.Load() - before
	t.Logf("statuses %v, peak RSS %d MiB, %d MiB over the %d MiB before the load (budget %d MiB)", codes, peak.Load()>>20, grew>>20, before>>20, rssBudget>>20)
	if codes[200]+codes[429] != 50 || codes[429] == 0 || codes[200] == 0 {
		t.Fatalf("statuses %v: want only 200 and 429 (with Retry-After), some of each", codes)
	}
	if grew > rssBudget {
		t.Fatalf("RSS grew by %d MiB under the load, over the budget of %d MiB", grew>>20, rssBudget>>20)
	}
}

// TestSlowBodyIsCutOff: a body sent at one byte a second is cut off at
// the read deadline.
func TestSlowBodyIsCutOff(t *testing.T) {
	wo, _ := rank.New("wo+rr", rank.DefaultOptions())
	s, _ := New(map[string]rank.Ranker{"wo": wo}, DefaultLimits())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := DefaultRunOptions()
	o.Drain, o.ReadTimeout = 0, time.Second
	base, done := runServer(t, ctx, s, o)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"query": "who wrote hamlet?", "documents": ["Shakespeare wrote Hamlet."]}`
	start := time.Now()
	fmt.Fprintf(conn, "POST /v1/rerank HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	closed := make(chan time.Duration, 1)
	go func() {
		// Read until the server answers or closes the connection.
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		closed <- time.Since(start)
	}()
	sent := 0
	for took := time.Duration(0); sent < len(body); sent++ {
		select {
		case took = <-closed:
			t.Logf("cut off after %v, %d of %d bytes sent", took, sent, len(body))
			if took < o.ReadTimeout-100*time.Millisecond || took > o.ReadTimeout+time.Second {
				t.Fatalf("cut off after %v; the read deadline is %v", took, o.ReadTimeout)
			}
			cancel()
			<-done
			return
		case <-time.After(time.Second):
		}
		if _, err := conn.Write([]byte{body[sent]}); err != nil {
			break
		}
		if sent > 5 {
			break
		}
	}
	select {
	case took := <-closed:
		t.Logf("cut off after %v", took)
		if took > o.ReadTimeout+time.Second {
			t.Fatalf("cut off after %v; the read deadline is %v", took, o.ReadTimeout)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the slow body was not cut off")
	}
	cancel()
	<-done
}
