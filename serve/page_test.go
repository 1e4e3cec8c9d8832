package serve

import (
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/as2/as2/rank"
	"github.com/as2/as2/trigger"
)

// TestPageInBrowser drives the page at / in a real headless Chromium: it
// types a question and a document, submits, waits for the highlight and
// checks the chosen sentence. With AS2_WRITE_SCREENSHOT=1 it saves a
// screenshot to docs/serve-page.png. It skips when no Chromium is
// installed (.ci/run installs Debian's chromium).
func TestPageInBrowser(t *testing.T) {
	var browser string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium installed (apt-get install chromium): the page is not tested in a browser")
	}
	wo, _ := rank.New("wo+rr", rank.DefaultOptions())
	bm, _ := rank.New("bm25", rank.DefaultOptions())
	s, err := New(map[string]rank.Ranker{"wo+rr": wo, "bm25": bm}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetDefault("wo+rr"); err != nil {
		t.Fatal(err)
	}
	// wo+rr scores 2.33 for two shared words at position 1: answer when >= 2.
	if err := s.Calibrate("wo+rr", trigger.Calibration{A: 10, B: -20, Threshold: 0.5}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1200, 720))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	doc := "Hamlet is a tragedy set in Denmark. Shakespeare wrote Hamlet around 1600. " +
		"The play is among the most performed in the world. Its hero, Prince Hamlet, seeks revenge on his uncle."
	// The first Run starts the browser and must not have a timeout (it
	// would end the browser); the later steps have one.
	if _, err := chromedp.Run(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 20*time.Second)
	defer tcancel()
	step := func(what string, a chromedp.Action[chromedp.Void]) {
		t.Helper()
		if _, err := chromedp.Run(tctx, a); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(tctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	step("model list", chromedp.WaitReady(chromedp.CSS("#model option")))
	models := text("#model")
	step("question", chromedp.SendKeys(chromedp.CSS("#question"), "Who wrote Hamlet?"))
	step("document", chromedp.SetValue(chromedp.CSS("#document"), doc))
	step("submit", chromedp.Click(chromedp.CSS("#submit")))
	step("highlight", chromedp.WaitVisible(chromedp.CSS("mark.best")))
	best, verdict := text("mark.best"), text("#verdict")
	shot, err := chromedp.Run(tctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	// The highlight ends with its rank as a superscript.
	if got := strings.TrimSuffix(best, "1"); got != "Shakespeare wrote Hamlet around 1600." {
		t.Fatalf("highlighted %q", best)
	}
	if !strings.Contains(verdict, "Answer found") || !strings.Contains(models, "bm25") {
		t.Fatalf("verdict %q, models %q", verdict, models)
	}
	if os.Getenv("AS2_WRITE_SCREENSHOT") == "1" {
		if err := os.WriteFile("../docs/serve-page.png", shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
