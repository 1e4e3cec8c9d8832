package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/as2/as2/serve"
)

// buildAS2 builds the real binary into a temporary folder: signals reach
// a process, not a test's goroutine, so only the binary shows what a user
// gets on SIGTERM.
func buildAS2(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build as2 with")
	}
	bin := filepath.Join(t.TempDir(), "as2")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// servedBinary is an as2 serve process started by startBinaryServe.
type servedBinary struct {
	cmd    *exec.Cmd
	base   string        // http://127.0.0.1:PORT
	exited chan error    // cmd.Wait's result
	mu     sync.Mutex    // guards stderr
	stderr *bytes.Buffer // everything it wrote to standard error
}

func (s *servedBinary) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// startBinaryServe starts bin serve on a free loopback port (it prints the
// port it got) and waits until it listens; the process is killed when the
// test ends if it is still running.
func startBinaryServe(t *testing.T, bin string, args ...string) *servedBinary {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	pr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &servedBinary{cmd: cmd, exited: make(chan error, 1), stderr: &bytes.Buffer{}}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			s.stderr.WriteString(line + "\n")
			s.mu.Unlock()
			if _, a, ok := strings.Cut(line, " on http://"); ok {
				addr <- a
			}
		}
		io.Copy(io.Discard, pr)
		s.exited <- cmd.Wait()
	}()
	// A no-op once it has exited (os.Process knows it was waited for).
	t.Cleanup(func() { cmd.Process.Kill() })
	select {
	case a := <-addr:
		s.base = "http://" + a
	case err := <-s.exited:
		t.Fatalf("as2 serve exited before listening: %v\n%s", err, s.log())
	case <-time.After(30 * time.Second):
		t.Fatalf("as2 serve not listening after 30 s:\n%s", s.log())
	}
	return s
}

// slowRerank is a /v1/rerank body for the built-in model: n documents of
// words words each. On two quiet cores the model (float32) takes about
// 2.5 s for 500 documents of 20 words and 5 s for 500 of 40 (17 s under
// load).
func slowRerank(t *testing.T, n, words int) []byte {
	t.Helper()
	vocab := strings.Fields("the berlin wall was built in 1961 and fell on 9 november 1989 when crowds crossed it into the west of the city which had been divided since the end of the second world war")
	docs := make([]string, n)
	for i := range docs {
		var b strings.Builder
		for j := 0; j < words; j++ {
			b.WriteString(vocab[(i*7+j*13+i/(j+1))%len(vocab)])
			b.WriteByte(' ')
		}
		docs[i] = b.String()
	}
	body, err := json.Marshal(serve.RerankRequest{Model: "builtin", Query: "when did the berlin wall fall?", Documents: docs})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// TestServeDrainsOnSIGTERM builds the real binary, starts as2 serve, sends
// a slow request (the built-in model on 500 documents), sends SIGTERM half
// a second in, and checks that the request still gets its full 200
// response and that as2 then exits 0: the drain as2 serve --help promises.
// When --grace ends first, the request is cut off and as2 still exits 0;
// a second signal still stops the process at once.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds as2 and ranks 500 documents with the built-in model (a few seconds)")
	}
	bin := buildAS2(t)
	const docs = 500
	// --timeout well above the request's time on a busy machine, so that
	// only the drain decides; --drain short to keep the test short, but
	// with a drain phase and a grace phase both crossed by the request.
	// float32 (--int8=false): the int8 default scores 500 short documents
	// in about a second, too close to the signal's half second.
	args := []string{"--drain", "200ms", "--grace", "60s", "--timeout", "120s", "--int8=false"}

	type reply struct {
		status int
		body   []byte
		err    error
		at     time.Time
	}
	post := func(base string, body []byte) <-chan reply {
		out := make(chan reply, 1)
		go func() {
			resp, err := http.Post(base+"/v1/rerank", "application/json", bytes.NewReader(body))
			if err != nil {
				out <- reply{err: err, at: time.Now()}
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			out <- reply{status: resp.StatusCode, body: b, err: err, at: time.Now()}
		}()
		return out
	}

	t.Run("in-flight request finishes, exit 0", func(t *testing.T) {
		s := startBinaryServe(t, bin, args...)
		start := time.Now()
		got := post(s.base, slowRerank(t, docs, 20))
		time.Sleep(500 * time.Millisecond)
		sent := time.Now()
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		var r reply
		select {
		case r = <-got:
		case <-time.After(90 * time.Second):
			t.Fatalf("no reply 90 s after SIGTERM; as2 said:\n%s", s.log())
		}
		if r.err != nil {
			t.Fatalf("the in-flight request failed after SIGTERM: %v\nas2 said:\n%s", r.err, s.log())
		}
		if !r.at.After(sent) {
			t.Fatalf("the request finished %v in, before SIGTERM: make it slower", r.at.Sub(start))
		}
		if r.status != http.StatusOK {
			t.Fatalf("status %d after SIGTERM, want 200: %s\nas2 said:\n%s", r.status, r.body, s.log())
		}
		var rr serve.RerankResponse
		if err := json.Unmarshal(r.body, &rr); err != nil {
			t.Fatalf("response: %v: %.200s", err, r.body)
		}
		if len(rr.Results) != docs {
			t.Fatalf("%d results, want %d", len(rr.Results), docs)
		}
		var err error
		select {
		case err = <-s.exited:
		case <-time.After(30 * time.Second):
			t.Fatalf("as2 still running 30 s after the request finished:\n%s", s.log())
		}
		if err != nil {
			t.Fatalf("exit: %v, want status 0; as2 said:\n%s", err, s.log())
		}
		t.Logf("request took %v (SIGTERM at %v); as2 exited %v after the reply",
			r.at.Sub(start).Round(time.Millisecond), sent.Sub(start).Round(time.Millisecond), time.Since(r.at).Round(time.Millisecond))
	})

	t.Run("grace ends: request cut off, exit 0", func(t *testing.T) {
		s := startBinaryServe(t, bin, "--drain", "0s", "--grace", "300ms", "--timeout", "120s", "--int8=false")
		got := post(s.base, slowRerank(t, docs, 20))
		time.Sleep(500 * time.Millisecond)
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		var err error
		select {
		case err = <-s.exited:
		case <-time.After(10 * time.Second):
			t.Fatalf("as2 still running 10 s after SIGTERM with --grace 300ms:\n%s", s.log())
		}
		if err != nil {
			t.Fatalf("exit: %v, want status 0 (the shutdown went as --grace says); as2 said:\n%s", err, s.log())
		}
		if !strings.Contains(s.log(), "cut off") {
			t.Errorf("as2 did not say that it cut requests off:\n%s", s.log())
		}
		if r := <-got; r.err == nil && r.status == http.StatusOK {
			t.Errorf("the request got a full 200 within a grace of 300 ms: make it slower")
		}
	})

	t.Run("second signal stops at once", func(t *testing.T) {
		s := startBinaryServe(t, bin, args...)
		// Longer documents: the request must outlast the second signal,
		// 1.5 s in.
		got := post(s.base, slowRerank(t, docs, 40))
		time.Sleep(500 * time.Millisecond)
		if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		// Past the old 300 ms grace: as2 must still be draining.
		time.Sleep(time.Second)
		select {
		case err := <-s.exited:
			t.Fatalf("as2 exited (%v) before the second signal, with a request in flight:\n%s", err, s.log())
		default:
		}
		second := time.Now()
		if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		var err error
		select {
		case err = <-s.exited:
		case <-time.After(5 * time.Second):
			t.Fatalf("as2 still running 5 s after a second signal:\n%s", s.log())
		}
		took := time.Since(second)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
			t.Fatalf("exit %v, want status %d (the first signal's); as2 said:\n%s", err, 128+int(syscall.SIGTERM), s.log())
		}
		if took > time.Second {
			t.Errorf("as2 took %v to exit after the second signal, want under a second", took)
		}
		if r := <-got; r.err == nil && r.status == http.StatusOK {
			t.Errorf("the request got a full 200 although as2 was stopped before it finished: make it slower")
		}
	})
}
