package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// TestClientLogLevel: ClientOptions.LogLevel asks for the server's log
// messages from that level on in both eras (logging/setLevel after
// initialize; _meta logLevel on each stateless request), over stdio and
// HTTP: test_tool_with_logging logs three messages at info, which a
// client at "info" gets and one at "error" does not.
func TestClientLogLevel(t *testing.T) {
	url := startHTTP(t)
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
			for _, tc := range []struct {
				level string
				want  int
			}{{"info", 3}, {"error", 0}} {
				name := transport + "/" + map[rt.Era]string{rt.Stateful: "stateful", rt.Stateless: "stateless"}[era] + "/" + tc.level
				t.Run(name, func(t *testing.T) {
					var tr rt.ClientTransport = &stdio.CommandTransport{Path: binary}
					if transport == "http" {
						tr = &streamhttp.ClientTransport{URL: url}
					}
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					// The client's middleware sees every message the server
					// sends, the log messages the handler takes included.
					var mu sync.Mutex
					var got []string
					seen := func(next rt.MessageHandler) rt.MessageHandler {
						return func(ctx context.Context, m *rt.Message) (wire.Marshaler, error) {
							if !m.Outgoing() && m.Method() == "notifications/message" {
								mu.Lock()
								got = append(got, string(m.Params()))
								mu.Unlock()
							}
							return next(ctx, m)
						}
					}
					cs, err := rt.Connect(ctx, tr, rt.ClientOptions{Name: "everything-test", Version: "1", Era: era, LogLevel: tc.level, Middleware: []rt.Middleware{seen}},
						v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
					if err != nil {
						t.Fatal(err)
					}
					defer cs.Close()
					if err := callTool(ctx, cs, "test_tool_with_logging", `{}`); err != nil {
						t.Fatal(err)
					}
					// Notifications sent before the result may trail it on
					// HTTP's GET stream: the test waits for those it wants
					// (and a moment for any it does not).
					count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
					for deadline := time.Now().Add(10 * time.Second); count() < max(tc.want, 1) && time.Now().Before(deadline); {
						if tc.want == 0 {
							time.Sleep(50 * time.Millisecond)
							break
						}
						time.Sleep(5 * time.Millisecond)
					}
					mu.Lock()
					defer mu.Unlock()
					if len(got) != tc.want {
						t.Errorf("%d log messages at %s, want %d: %v", len(got), tc.level, tc.want, got)
					}
				})
			}
		}
	}
}

// TestForcedEraHint: a client forcing an era the server does not speak
// fails with an error saying that mcp.Auto (the default) would connect;
// the default connects to a server of either era.
func TestForcedEraHint(t *testing.T) {
	for _, tc := range []struct {
		revisions string
		forced    rt.Era
		want      string
	}{
		{"2025-11-25", rt.Stateless, "mcp.Auto, the default, falls back to initialize"},
		{"2026-07-28", rt.Stateful, "mcp.Auto, the default, tries server/discover first"},
	} {
		t.Run(tc.revisions, func(t *testing.T) {
			tr := &stdio.CommandTransport{Path: binary, Env: append(os.Environ(), "EVERYTHING_REVISIONS="+tc.revisions)}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err := rt.Connect(ctx, tr, rt.ClientOptions{Era: tc.forced}, v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("forced era against a %s server: %v; want the hint %q", tc.revisions, err, tc.want)
			}
			cs, err := rt.Connect(ctx, tr, rt.ClientOptions{}, v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
			if err != nil {
				t.Fatalf("the default era: %v", err)
			}
			defer cs.Close()
			if cs.ProtocolVersion() != tc.revisions {
				t.Errorf("the default era negotiated %s, want %s", cs.ProtocolVersion(), tc.revisions)
			}
		})
	}
}

// TestUndeclaredCapability: in a stateful session, a request whose
// capability the server did not declare at initialize fails before it is
// sent, naming the capability; ClientOptions.SendUndeclared sends it
// anyway (and the server refuses it). A stateless server's capabilities
// may change between requests: its requests are sent.
func TestUndeclaredCapability(t *testing.T) {
	srv := mwServer(t, nil, slog.New(slog.DiscardHandler)) // tools only
	for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
		for _, send := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/send-anyway=%v", map[rt.Era]string{rt.Stateful: "stateful", rt.Stateless: "stateless"}[era], send), func(t *testing.T) {
				ctx := testContext(t)
				cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: era, SendUndeclared: send},
					v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				var res wire.Raw
				err = cs.Call(ctx, "resources/list", nil, &res)
				var ue *rt.UndeclaredError
				var je *jsonrpc.Error
				refuse := !send && era == rt.Stateful
				switch {
				case refuse && (!errors.As(err, &ue) || ue.Capability != "resources" || !strings.Contains(err.Error(), "SendUndeclared")):
					t.Errorf("resources/list: %v; want an UndeclaredError naming resources", err)
				case !refuse && !errors.As(err, &je):
					t.Errorf("resources/list sent: %v; want the server's error", err)
				}
				if _, err := callText(ctx, cs, "catalog_tool"); err != nil {
					t.Errorf("a declared capability: %v", err)
				}
			})
		}
	}
}
