package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// binary is the everything server built once for the tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "everything")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "everything")
	// A debug build: the server validates the results it sends
	// (rt.ValidateResultsAuto), so every test through it checks them.
	build := exec.Command("go", "build", "-race", "-tags", "mcpgen_debug", "-o", binary, ".")
	if runtime.GOARCH == "" {
		build.Args = []string{"go", "build", "-tags", "mcpgen_debug", "-o", binary, "."}
	}
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testContext is a test's context for its calls: it ends with the test, or
// after two minutes, so that an answer that never comes fails the test
// naming the call instead of hanging the package until go test's timeout.
func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// testHTTP is the client of the tests' own HTTP requests: an answer that
// never comes fails its test after two minutes (SSE streams included)
// instead of hanging the package.
var testHTTP = &http.Client{Timeout: 2 * time.Minute}

// serveProxy serves a proxy in front of bin/everything instances on a
// test server that ends with the test, its client connections first.
// httptest.Server.Close waits for the requests it serves, and a session's
// stream passed through from an instance that outlives the test's body
// (a session a failing test left open) would hold it for ever: the test's
// failure would be lost behind go test's timeout.
func serveProxy(t *testing.T, p http.Handler) *httptest.Server {
	ps := httptest.NewServer(p)
	t.Cleanup(func() {
		closed := make(chan struct{})
		go func() { ps.Close(); close(closed) }()
		for {
			ps.CloseClientConnections()
			select {
			case <-closed:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	return ps
}

// clientHandler answers the server's requests the way the conformance
// harness does.
type clientHandler struct {
	v25.UnimplementedClientHandler
}

func (clientHandler) CreateMessage(_ context.Context, p *v25.CreateMessageRequestParams) (v25.CreateMessageReply, error) {
	return &v25.CreateMessageResult{Role: v25.RoleAssistant, Model: "test-model", Content: &v25.TextContent{Text: "This is a test response from the client"}, StopReason: wire.Some(v25.CreateMessageResultStopReasonEndTurn)}, nil
}

func (clientHandler) Elicit(context.Context, v25.ElicitRequestParams) (v25.ElicitReply, error) {
	return &v25.ElicitResult{Action: v25.ElicitResultActionAccept, Content: v25.ElicitResultContent{{Name: "username", Value: v25.ElicitResultContentValueString("testuser")}, {Name: "email", Value: v25.ElicitResultContentValueString("test@example.com")}}}, nil
}

type modernHandler struct{ v26.UnimplementedClientHandler }

// Elicit accepts, answering each requested property with a value of its
// type ("Alice" for strings).
func (modernHandler) Elicit(_ context.Context, p v26.ElicitRequestParams) (*v26.ElicitResult, error) {
	content := v26.ElicitResultContent{}
	if form, ok := p.(*v26.ElicitRequestFormParams); ok && form.RequestedSchema != nil {
		for _, prop := range form.RequestedSchema.Properties {
			name := prop.Name
			switch prop.Value.(type) {
			case *v26.BooleanSchema:
				content.Set(name, v26.ElicitResultContentValueBoolean(true))
			case *v26.NumberSchema:
				content.Set(name, v26.ElicitResultContentValueNumber(1))
			default:
				content.Set(name, v26.ElicitResultContentValueString("Alice"))
			}
		}
	}
	return &v26.ElicitResult{Action: v26.ElicitResultActionAccept, Content: content}, nil
}

func (modernHandler) CreateMessage(context.Context, *v26.CreateMessageRequestParams) (*v26.CreateMessageResult, error) {
	return &v26.CreateMessageResult{Role: v26.RoleAssistant, Model: "m", Content: &v26.TextContent{Text: "Paris"}}, nil
}

func (modernHandler) ListRoots(context.Context, *v26.ListRootsRequestParams) (*v26.ListRootsResult, error) {
	return &v26.ListRootsResult{Roots: []v26.Root{{URI: "file:///test/root", Name: wire.Some("Test Root")}}}, nil
}

func connect(t *testing.T, era rt.Era) *rt.ClientSession {
	t.Helper()
	return connectCaps(t, "", era, "")
}

func textOf(t *testing.T, blocks any) string {
	t.Helper()
	b, err := wire.Marshal(blocks.(wire.Marshaler))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestLegacy(t *testing.T) { overBoth(t, testLegacy) }

func testLegacy(t *testing.T, url string) {
	cs := connectCaps(t, url, rt.Stateful, "")
	if cs.ProtocolVersion() != "2025-11-25" || cs.Stateless() {
		t.Fatalf("negotiated %s (stateless %v)", cs.ProtocolVersion(), cs.Stateless())
	}
	c := v25.NewClient(cs)
	ctx := testContext(t)
	tools, err := c.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tools.Tools[0].Name != "test_simple_text" || len(tools.Tools) < 10 {
		t.Errorf("tools: %d, first %s", len(tools.Tools), tools.Tools[0].Name)
	}
	res, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"hello"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*v25.TextContent); !ok || tc.Text != "hello" || len(res.Content) != 1 {
		t.Errorf("echo: %s", textOf(t, res))
	}
	// A server-to-client request answered by our handler.
	res, err = c.CallTool(ctx, &v25.CallToolRequestParams{Name: "test_sampling", Arguments: v25.CallToolRequestParamsArguments(`{"prompt":"hi"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textOf(t, res), "LLM response: This is a test response from the client") {
		t.Errorf("sampling: %s", textOf(t, res))
	}
	res, err = c.CallTool(ctx, &v25.CallToolRequestParams{Name: "test_elicitation", Arguments: v25.CallToolRequestParamsArguments(`{"message":"who?"}`)})
	if err != nil || !strings.Contains(textOf(t, res), "testuser") {
		t.Errorf("elicitation: %v %v", err, res)
	}
	// Progress.
	var mu sync.Mutex
	var seen []float64
	pctx := rt.WithProgress(ctx, func(u rt.ProgressUpdate) {
		mu.Lock()
		seen = append(seen, u.Progress)
		mu.Unlock()
	})
	if _, err := c.CallTool(pctx, &v25.CallToolRequestParams{Name: "test_tool_with_progress"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(seen) != 3 || seen[2] != 100 {
		t.Errorf("progress: %v", seen)
	}
	mu.Unlock()
	// Cancellation: the call returns at once; the session keeps working.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	start := time.Now()
	_, err = c.CallTool(cctx, &v25.CallToolRequestParams{Name: "slow", Arguments: v25.CallToolRequestParamsArguments(`{"seconds":30}`)})
	cancel()
	if err == nil || time.Since(start) > 10*time.Second { // at once, not after the 30 s
		t.Errorf("cancel: %v after %v", err, time.Since(start))
	}
	if _, err := c.CallTool(ctx, &v25.CallToolRequestParams{Name: "echo", Arguments: v25.CallToolRequestParamsArguments(`{"text":"again"}`)}); err != nil {
		t.Errorf("after cancel: %v", err)
	}
	// Resources, prompts, completion.
	rr, err := c.ReadResource(ctx, &v25.ReadResourceRequestParams{URI: "test://template/123/data"})
	if err != nil || !strings.Contains(textOf(t, rr), "Data for ID: 123") {
		t.Errorf("template read: %v", err)
	}
	_, err = c.ReadResource(ctx, &v25.ReadResourceRequestParams{URI: "test://nope"})
	if je, ok := err.(*jsonrpc.Error); !ok || je.Code != rt.CodeResourceNotFound {
		t.Errorf("unknown resource: %v", err)
	}
	gp, err := c.GetPrompt(ctx, &v25.GetPromptRequestParams{Name: "test_prompt_with_arguments", Arguments: v25.GetPromptRequestParamsArguments{{Name: "arg1", Value: "testValue1"}, {Name: "arg2", Value: "testValue2"}}})
	if err != nil || !strings.Contains(textOf(t, gp), "testValue2") {
		t.Errorf("prompt: %v", err)
	}
	// Invalid params name the field.
	_, err = c.CallTool(ctx, &v25.CallToolRequestParams{})
	if je, ok := err.(*jsonrpc.Error); !ok || je.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("invalid params: %v", err)
	}
}

func TestModern(t *testing.T) { overBoth(t, testModern) }

func testModern(t *testing.T, url string) {
	cs := connectCaps(t, url, rt.Stateless, "")
	if cs.ProtocolVersion() != "2026-07-28" || !cs.Stateless() {
		t.Fatalf("negotiated %s (stateless %v)", cs.ProtocolVersion(), cs.Stateless())
	}
	c := v26.NewClient(cs)
	ctx := testContext(t)
	lt, err := c.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lt.CacheScope == "" || lt.ResultType != "complete" {
		t.Errorf("list not stamped: %s %s", lt.CacheScope, lt.ResultType)
	}
	// Multi round-trip: the client's handler fulfils the input requests.
	res, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: "test_input_required_result_elicitation"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textOf(t, res), "Hello, Alice!") {
		t.Errorf("mrtr: %s", textOf(t, res))
	}
	for _, name := range []string{"test_input_required_result_multi_round", "test_input_required_result_multiple_inputs", "test_input_required_result_request_state"} {
		if _, err := c.CallTool(ctx, &v26.CallToolRequestParams{Name: name}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	var n int
	pctx := rt.WithProgress(ctx, func(rt.ProgressUpdate) { n++ })
	if _, err := c.CallTool(pctx, &v26.CallToolRequestParams{Name: "test_tool_with_progress"}); err != nil || n != 3 {
		t.Errorf("progress: %v, %d updates", err, n)
	}
}

func TestAutoEraFindsModern(t *testing.T) { overBoth(t, testAutoEraFindsModern) }

func testAutoEraFindsModern(t *testing.T, url string) {
	cs := connectCaps(t, url, rt.Auto, "")
	if !cs.Stateless() {
		t.Errorf("auto negotiated the legacy era with a dual-era server")
	}
}
