package gateway_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	// As bin/mcpgateway: every backend tool's schema is checked.
	_ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"
	"github.com/mcpgen/mcpgen/runtime/wire"

	"github.com/mcpgen/mcpgen/gateway"
	v24via "github.com/mcpgen/mcpgen/gateway/mcp/v20241105via20260728"
	v2503via "github.com/mcpgen/mcpgen/gateway/mcp/v20250326via20260728"
	v2506via "github.com/mcpgen/mcpgen/gateway/mcp/v20250618via20260728"
	v25via "github.com/mcpgen/mcpgen/gateway/mcp/v20251125via20260728"
	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// revisions are the five published revisions, oldest first.
var revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// everything is bin/everything, which make build makes (make test-gateway
// builds it first).
func everything(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../bin/everything")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s: %v (make build makes it; make test-gateway runs this test after it)", p, err)
	}
	return p
}

// start is a gateway in front of bin/everything serving only revision
// backendRev.
func start(t *testing.T, backendRev string) *gateway.Gateway {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := gateway.New(ctx, gateway.Options{Backend: &stdio.CommandTransport{Path: everything(t), Args: []string{"--revisions", backendRev, "-v"}, Stderr: os.Stderr}, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	if got := g.Backend().ProtocolVersion(); got != backendRev {
		t.Fatalf("the gateway speaks %s to the backend, want %s", got, backendRev)
	}
	return g
}

// clientHandler answers what the backend, through the gateway, asks.
type clientHandler struct {
	mu    sync.Mutex
	asked []string
}

func (h *clientHandler) note(m string) {
	h.mu.Lock()
	h.asked = append(h.asked, m)
	h.mu.Unlock()
}

func (h *clientHandler) CreateMessage(_ context.Context, p *v26.CreateMessageRequestParams) (*v26.CreateMessageResult, error) {
	h.note("sampling")
	var r v26.CreateMessageResult
	err := wire.Unmarshal([]byte(`{"role":"assistant","content":{"type":"text","text":"sampled through the gateway"},"model":"test"}`), &r)
	return &r, err
}

func (h *clientHandler) Elicit(_ context.Context, _ v26.ElicitRequestParams) (*v26.ElicitResult, error) {
	h.note("elicitation")
	var r v26.ElicitResult
	err := wire.Unmarshal([]byte(`{"action":"accept","content":{"username":"gw","email":"gw@example.com","name":"gw"}}`), &r)
	return &r, err
}

func (h *clientHandler) ListRoots(_ context.Context, _ *v26.ListRootsRequestParams) (*v26.ListRootsResult, error) {
	h.note("roots")
	var r v26.ListRootsResult
	err := wire.Unmarshal([]byte(`{"roots":[{"uri":"file:///gw","name":"gw"}]}`), &r)
	return &r, err
}

// connect opens a session with the gateway as a client of revision rev,
// over transport tx ("stdio": in process; "http": Streamable HTTP).
func connect(t *testing.T, g *gateway.Gateway, tx, rev string, h *clientHandler) *rt.ClientSession {
	t.Helper()
	var tr rt.ClientTransport
	switch tx {
	case "stdio":
		tr = &stdio.InProcessTransport{Server: g.Server()}
	case "http":
		sh := streamhttp.NewHandler(g.Server(), streamhttp.Options{})
		srv := httptest.NewServer(sh)
		t.Cleanup(func() { srv.Close(); sh.Close() })
		tr = &streamhttp.ClientTransport{URL: srv.URL}
	}
	era := rt.Stateful
	if rev == "2026-07-28" {
		era = rt.Stateless
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := rt.Connect(ctx, tr, rt.ClientOptions{Name: "gateway-test", Version: "1", Era: era, ProtocolVersion: rev},
		v26.Mount(h), v25via.Mount(h), v2506via.Mount(h), v2503via.Mount(h), v24via.Mount(h))
	if err != nil {
		t.Fatalf("connect %s over %s: %v", rev, tx, err)
	}
	t.Cleanup(func() { cs.Close() })
	if cs.ProtocolVersion() != rev {
		t.Fatalf("negotiated %s, want %s", cs.ProtocolVersion(), rev)
	}
	return cs
}

// text is the text of a call's content, joined.
func text(r *v26.CallToolResult) string {
	b, _ := wire.Marshal(r)
	return string(b)
}

// TestMatrix: bin/everything serving one revision behind the gateway,
// reached by a client of each revision over each front transport: every
// cell lists and calls tools (icons and _meta through when both ends
// have them), gets a prompt, reads a resource and a template, completes,
// follows progress, and answers a sampling request the backend makes in
// the middle of a call — as an input round for a 2026-07-28 client, as a
// request of its own for the others.
func TestMatrix(t *testing.T) {
	for _, backendRev := range revisions {
		t.Run("backend="+backendRev, func(t *testing.T) {
			g := start(t, backendRev)
			for _, tx := range []string{"stdio", "http"} {
				for _, frontRev := range revisions {
					t.Run(tx+"/"+frontRev, func(t *testing.T) {
						h := &clientHandler{}
						cs := connect(t, g, tx, frontRev, h)
						c := v26.NewClient(cs)
						ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
						defer cancel()
						info, err := c.ServerInfo()
						if err != nil || info.Name != "everything" {
							t.Errorf("serverInfo through the gateway: %+v %v; want the backend's", info, err)
						}

						tools, err := c.ListTools(ctx, nil)
						if err != nil {
							t.Fatalf("tools/list: %v", err)
						}
						i := slices.IndexFunc(tools.Tools, func(x v26.Tool) bool { return x.Name == "echo" })
						if i < 0 {
							t.Fatalf("tools/list has no echo: %d tools", len(tools.Tools))
						}
						echo, _ := wire.Marshal(&tools.Tools[i])
						if withIcons := backendRev >= "2025-11-25" && frontRev >= "2025-11-25"; withIcons != strings.Contains(string(echo), "echo.svg") {
							t.Errorf("echo through the gateway (icons expected: %v): %s", withIcons, echo)
						}
						if withMeta := backendRev >= "2025-06-18" && frontRev >= "2025-06-18"; withMeta != strings.Contains(string(echo), "io.mcpgen/example") {
							t.Errorf("echo through the gateway (_meta expected: %v): %s", withMeta, echo)
						}

						r, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "echo", Arguments: v26.CallToolRequestParamsArguments(`{"text":"through"}`)})
						if err != nil || !strings.Contains(text(r), "through") {
							t.Errorf("tools/call echo: %s %v", text(r), err)
						}

						p, err := c.GetPrompt(ctx, &v26.GetPromptRequestParams{Name: "test_simple_prompt"})
						if err != nil || len(p.Messages) == 0 {
							t.Errorf("prompts/get: %+v %v", p, err)
						}

						rr, err := c.ReadResource(ctx, &v26.ReadResourceRequestParams{URI: "test://static-text"})
						if err != nil || len(rr.Contents) == 0 {
							t.Errorf("resources/read: %+v %v", rr, err)
						}
						tr, err := c.ReadResource(ctx, &v26.ReadResourceRequestParams{URI: "test://template/42/data"})
						if b, _ := wire.Marshal(tr); err != nil || !strings.Contains(string(b), "42") {
							t.Errorf("resources/read of a template: %s %v", b, err)
						}

						var updates []rt.ProgressUpdate
						var mu sync.Mutex
						pctx := rt.WithProgress(ctx, func(u rt.ProgressUpdate) { mu.Lock(); updates = append(updates, u); mu.Unlock() })
						if _, err := c.CallTool(pctx, &v26.CallToolRequestParams{Name: "test_tool_with_progress"}); err != nil {
							t.Errorf("tools/call test_tool_with_progress: %v", err)
						}
						mu.Lock()
						if len(updates) == 0 {
							t.Errorf("no progress reached the client through the gateway")
						}
						mu.Unlock()

						sampling := "test_sampling"
						args := `{"prompt":"hi"}`
						if backendRev == "2026-07-28" {
							sampling, args = "test_input_required_result_sampling", `{}`
						}
						sr, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: sampling, Arguments: v26.CallToolRequestParamsArguments(args)})
						if err != nil || !strings.Contains(text(sr), "sampled through the gateway") {
							t.Errorf("tools/call %s (the backend asks the client for a completion): %s %v", sampling, text(sr), err)
						}
						if !slices.Contains(h.asked, "sampling") {
							t.Errorf("the client was not asked for sampling: %v", h.asked)
						}
					})
				}
			}
		})
	}
}

// testLogger logs to the test's output with -v and MCPGATEWAY_DEBUG set.
func testLogger(t *testing.T) *slog.Logger {
	if os.Getenv("MCPGATEWAY_DEBUG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
