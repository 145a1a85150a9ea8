package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// chromium is the path of Debian's chromium ($CHROMIUM), which .ci/run
// installs: missing, the test fails where interop peers are required (make
// test) and is skipped elsewhere.
func chromium(t *testing.T) string {
	t.Helper()
	name := os.Getenv("CHROMIUM")
	if name == "" {
		name = "chromium"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("MCPGEN_REQUIRE_INTEROP") != "" {
			t.Fatalf("%s not found: install Debian's chromium (.ci/run does) or set $CHROMIUM", name)
		}
		t.Skip("chromium not installed")
	}
	return path
}

// TestMCPAppInBrowser: the everything server's MCP App running in a real
// browser. Headless Chromium loads a host page built on the extension's
// own host bridge (@modelcontextprotocol/ext-apps's AppBridge, with the
// official TypeScript client; interop/browser/host.mjs), served on the
// same origin as the server's /mcp: the host reads show_counter's ui://
// resource, renders it in a sandboxed iframe under the CSP its _meta.ui
// declares, and the app initializes, gets the tool input, calls
// show_counter through the host and shows the result; its fetch to a
// declared domain passes the CSP (and fails offline), one to an
// undeclared domain is blocked by it. The host's log is the test's log;
// the screenshot is kept in the test's output directory.
func TestMCPAppInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := interopDir(t)
	static := t.TempDir()
	bundle := peerCommand(t, time.Minute, filepath.Join(dir, "node.sh"), filepath.Join(dir, "browser", "run.mjs"), "bundle", static)
	if out, err := bundle.CombinedOutput(); err != nil {
		t.Fatalf("bundling the host page: %v\n%s", err, out)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamhttp.NewHandler(fullServer(t), streamhttp.Options{}))
	mux.Handle("/", http.FileServer(http.Dir(static)))
	hs := httptest.NewServer(mux)
	defer hs.Close()

	shot := filepath.Join(t.TempDir(), "mcp-app.png")
	if d := os.Getenv("MCPGEN_ARTIFACTS"); d != "" {
		shot = filepath.Join(d, "mcp-app.png")
	}
	open := peerCommand(t, 2*time.Minute, filepath.Join(dir, "node.sh"), filepath.Join(dir, "browser", "run.mjs"),
		"open", hs.URL+"/host.html", "--chromium", browser, "--screenshot", shot, "--timeout", "60000")
	var stderr strings.Builder
	open.Stderr = &stderr
	out, err := open.Output()
	if err != nil {
		t.Fatalf("run.mjs open: %v\n%s\n%s", err, out, stderr.String())
	}
	var report struct {
		State string
		Host  []string
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("run.mjs printed no report: %v\n%s", err, out)
	}
	t.Logf("the host page's log (DOM text), screenshot %s:\n  %s", shot, strings.Join(report.Host, "\n  "))
	if report.State != "done" {
		t.Fatalf("state %q, want done", report.State)
	}
	has := func(want string) bool {
		return slices.ContainsFunc(report.Host, func(line string) bool { return strings.Contains(line, want) })
	}
	for _, want := range []string{
		"show_counter's UI: ui://everything/counter.html",
		"connect-src https://api.example.com",
		"app initialized",
		"app: initialized by mcpgen-browser-host",
		"app: tool input: start=41",
		"app: tool result: A counter from 41.",
		"app: csp blocked https://undeclared.example.org/steal (connect-src)",
		"app: fetch https://undeclared.example.org (not declared): failed",
	} {
		if !has(want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	if has("csp blocked https://api.example.com") {
		t.Error("the CSP blocked the declared domain https://api.example.com")
	}
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Errorf("no screenshot: %v", err)
	}
}
