package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// benchText is the echo argument of the benchmarks: {"text":"hello"}.
const benchText = "hello"

// session is a client connected to a server of one stack, with the MCP
// session already initialized: the steady state the benchmarks measure.
type session interface {
	// echo calls the echo tool with the arguments the session was opened
	// for and returns the text of the one text block it answers.
	echo(ctx context.Context) (string, error)
	// protocolVersion is the negotiated protocol version.
	protocolVersion() string
	// close ends the client and the server and waits for the server.
	close() error
}

// stack is one MCP implementation under comparison.
type stack struct {
	// name is the sub-benchmark name: one row of the benchstat table.
	name string
	// open starts the stack's server and client over newPipes and
	// initializes the session; echo then sends args as the arguments.
	open func(tb testing.TB, args json.RawMessage) session
}

// stacks lists the stacks, in the order of the results table.
func stacks() []stack {
	return []stack{
		{"mcpgen", openMCPGen},
		{"mcpgen-stateless", openMCPGenStateless},
		{"go-sdk", openGoSDK},
		{"mcp-go", openMCPGo},
		{"mcp-go-novalidate", openMCPGoNoValidate},
	}
}

// openSession opens s for args and closes it when tb ends.
func openSession(tb testing.TB, s stack, args json.RawMessage) session {
	tb.Helper()
	sess := s.open(tb, args)
	tb.Cleanup(func() {
		if err := sess.close(); err != nil {
			tb.Errorf("%s: close: %v", s.name, err)
		}
	})
	return sess
}

// TestEchoAllStacks checks that every stack's echo answers its argument,
// so that a broken stack cannot pass for a fast one.
func TestEchoAllStacks(t *testing.T) {
	texts := []string{benchText, "", `quotes " and \ backslash, tab	newline
 and ünïcødé ✓ 🎉`}
	for _, s := range stacks() {
		for i, text := range texts {
			// One session at a time, closed when its subtest ends.
			t.Run(fmt.Sprintf("%s/text%d", s.name, i), func(t *testing.T) {
				sess := openSession(t, s, echoArgs(t, text))
				t.Logf("protocol %s", sess.protocolVersion())
				for range 3 { // steady state: the same session again
					got, err := sess.echo(t.Context())
					if err != nil {
						t.Fatalf("echo %q: %v", text, err)
					}
					if got != text {
						t.Fatalf("echo %q = %q", text, got)
					}
				}
			})
		}
	}
}

// TestEchoRejectsBadArguments checks that no stack echoes arguments that
// break the inputSchema: each must answer a tool error (isError) or a
// JSON-RPC error. The log shows who rejected them: the validating stacks
// before the handler, mcp-go-novalidate in its handler (RequireString).
func TestEchoRejectsBadArguments(t *testing.T) {
	for _, s := range stacks() {
		for i, args := range []string{`{"text":42}`, `{}`, `{"txt":"hello"}`} {
			t.Run(fmt.Sprintf("%s/args%d", s.name, i), func(t *testing.T) {
				sess := openSession(t, s, json.RawMessage(args))
				got, err := sess.echo(t.Context())
				if err == nil {
					t.Fatalf("echo %s = %q, want an error", args, got)
				}
				t.Logf("echo %s: %v", args, err)
			})
		}
	}
}

// BenchmarkToolsCall is one tools/call of echo with {"text":"hello"}:
// the client encodes the request, the stdio framing carries it over a
// pipe, the server decodes, validates and dispatches it, the handler
// answers one text block, and the response goes back the same way to be
// decoded by the client. The session is initialized before the timer.
func BenchmarkToolsCall(b *testing.B) {
	for _, s := range stacks() {
		b.Run(s.name, func(b *testing.B) {
			sess := openSession(b, s, echoArgs(b, benchText))
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sess.echo(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// parallelism is how many goroutines per GOMAXPROCS call at once in
// BenchmarkToolsCallParallel. At 16 the go-sdk and mcp-go rows turned
// bimodal from one run to the next on a 2-core machine (see README.md);
// 4 keeps 8 calls in flight there and the rows reproducible.
const parallelism = 4

// BenchmarkToolsCallParallel is BenchmarkToolsCall with many calls in
// flight on one session at once (parallelism × GOMAXPROCS goroutines):
// how well each stack pipelines requests over one stdio connection.
func BenchmarkToolsCallParallel(b *testing.B) {
	for _, s := range stacks() {
		b.Run(s.name, func(b *testing.B) {
			sess := openSession(b, s, echoArgs(b, benchText))
			ctx := context.Background()
			b.ReportAllocs()
			b.SetParallelism(parallelism)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					got, err := sess.echo(ctx)
					if err != nil {
						b.Error(err)
						return
					}
					if got != benchText {
						b.Errorf("echo = %q", got)
						return
					}
				}
			})
		})
	}
}
