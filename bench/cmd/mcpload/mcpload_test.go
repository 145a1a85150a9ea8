package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	c := newChecker("hello")
	tests := []struct {
		name, msg string
		id        int64
		err       string
	}{
		{"result", `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`, 7, ""},
		{"space after the colon", `{"jsonrpc":"2.0","id": 8,"result":{"content":[{"type":"text","text":"hello"}]}}`, 8, ""},
		{"as SSE", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}}\n\n", 9, ""},
		{"error", `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}`, 3, "error response"},
		{"tool error", `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hello"}],"isError":true}}`, 4, "error response"},
		{"other text", `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"hell"}]}}`, 5, "does not echo"},
		{"no id", `{"jsonrpc":"2.0","result":{}}`, 0, "no id"},
		{"string id", `{"jsonrpc":"2.0","id":"x","result":{}}`, 0, "not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := c.check([]byte(tt.msg))
			if id != tt.id {
				t.Errorf("id %d, want %d", id, tt.id)
			}
			if (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want %q", err, tt.err)
			}
		})
	}
}

// TestStacks drives every echo server shortly over stdio and HTTP in the
// eras it serves: every response verifies, so no stack is measured while
// failing.
func TestStacks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the four servers")
	}
	dir := t.TempDir()
	for _, s := range []string{"mcpgen", "go-sdk", "mcp-go", "plain"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "echo-"+s), "../echo-"+s).CombinedOutput()
		if err != nil {
			t.Fatalf("build echo-%s: %v\n%s", s, err, out)
		}
	}
	tests := []struct {
		stack, era string
		http       bool
	}{
		{"mcpgen", "2025-11-25", false}, {"mcpgen", "2026-07-28", false}, {"mcpgen", "2025-11-25", true}, {"mcpgen", "2026-07-28", true},
		{"go-sdk", "2025-11-25", false}, {"go-sdk", "2025-11-25", true},
		{"mcp-go", "2025-11-25", false}, {"mcp-go", "2025-11-25", true},
		{"plain", "2025-11-25", false}, {"plain", "2026-07-28", false}, {"plain", "2025-11-25", true}, {"plain", "2026-07-28", true},
	}
	for _, tt := range tests {
		tx := "stdio"
		if tt.http {
			tx = "http"
		}
		t.Run(tt.stack+"/"+tt.era+"/"+tx, func(t *testing.T) {
			r, err := run(context.Background(), config{
				cmd: filepath.Join(dir, "echo-"+tt.stack), http: tt.http, era: tt.era,
				concurrency: 4, duration: time.Second, warmup: 50 * time.Millisecond, textBytes: 100,
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Errors != 0 || r.Calls == 0 {
				t.Fatalf("%d calls, %d errors (first: %s)", r.Calls, r.Errors, r.FirstError)
			}
			if r.ServerPeakRSSKiB == 0 {
				t.Error("no peak RSS for the server")
			}
		})
	}
}
