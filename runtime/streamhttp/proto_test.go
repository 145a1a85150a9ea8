package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/listen"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The tests use two hand-written revisions: a stateful "2025-11-25" and a
// stateless "2026-07-28", with just the methods the transport needs. Every
// method is served by the handler's Serve method.

const (
	revOld = "2025-11-25"
	revNew = "2026-07-28"
)

// server is implemented by the handlers of the test revisions.
type server interface {
	Serve(ctx context.Context, method string, params wire.Raw) (wire.Marshaler, error)
	Has(method string) bool
}

// roles give each method what a generated table gives the runtime: its
// role, and for the methods the runtime answers, the feature (their Serve
// is then unused).
var roles = map[string]struct {
	role    protocol.Role
	feature protocol.Feature
}{
	"initialize":                               {protocol.RoleInitialize, protocol.FeatureLifecycle},
	"notifications/initialized":                {protocol.RoleInitialized, protocol.FeatureLifecycle},
	"ping":                                     {protocol.RolePing, protocol.FeatureLifecycle},
	"notifications/cancelled":                  {protocol.RoleCancelled, protocol.FeatureLifecycle},
	"notifications/progress":                   {protocol.RoleProgress, protocol.FeatureLifecycle},
	"logging/setLevel":                         {protocol.RoleSetLevel, protocol.FeatureLogging},
	"server/discover":                          {protocol.RoleDiscover, protocol.FeatureDiscover},
	"subscriptions/listen":                     {protocol.RoleListen, protocol.FeatureListen},
	"notifications/subscriptions/acknowledged": {protocol.RoleListenAcknowledged, 0},
	"notifications/message":                    {protocol.RoleLog, 0},
	"notifications/tools/list_changed":         {protocol.RoleToolsListChanged, 0},
	"tools/list":                               {protocol.RoleToolsList, 0},
	"tools/call":                               {protocol.RoleToolsCall, 0},
	"resources/read":                           {protocol.RoleResourcesRead, 0},
	"sampling/createMessage":                   {protocol.RoleSampling, 0},
}

func method(name string, from string, notification bool) *protocol.Method {
	m := &protocol.Method{Name: name, Notification: notification, FromClient: strings.Contains(from, "c"), FromServer: strings.Contains(from, "s")}
	m.Role, m.Feature = roles[name].role, roles[name].feature
	m.Implemented = func(h any) bool {
		s, ok := h.(server)
		return ok && s.Has(name)
	}
	m.Serve = func(ctx context.Context, h any, params wire.Raw) (wire.Marshaler, error) {
		return h.(server).Serve(ctx, name, params)
	}
	m.ValidateParams = func(wire.Raw) error { return nil }
	return m
}

func testProtocol(rev string, stateless bool) *protocol.Protocol {
	era := protocol.Stateful
	if stateless {
		era = protocol.Stateless
	}
	p := &protocol.Protocol{Revision: rev, Era: era, Methods: map[string]*protocol.Method{},
		ServerCapabilities: []string{"tools", "prompts", "resources", "logging"},
		ClientCapabilities: []string{"sampling", "roots", "elicitation"}}
	add := func(m *protocol.Method) { p.Methods[m.Name] = m }
	add(method("tools/list", "c", false))
	add(method("tools/call", "c", false))
	add(method("prompts/get", "c", false))
	add(method("resources/read", "c", false))
	add(method("notifications/cancelled", "cs", true))
	add(method("notifications/progress", "cs", true))
	add(method("notifications/message", "s", true))
	add(method("notifications/tools/list_changed", "s", true))
	add(method("sampling/createMessage", "s", false))
	p.Methods["tools/call"].NameParam = "name"
	p.Methods["prompts/get"].NameParam = "name"
	p.Methods["resources/read"].NameParam = "uri"
	p.NoID = jsonrpc.OmitID
	if stateless {
		p.ServerCapabilities = append(p.ServerCapabilities, "extensions")
		p.MissingCapabilityCode = mcp.CodeMissingRequiredClientCapability
		p.Methods["tools/list"].Cacheable = true
		add(method("server/discover", "c", false))
		add(method("subscriptions/listen", "c", false))
		add(method("notifications/subscriptions/acknowledged", "s", true))
		p.Stamp = stamp
	} else {
		add(method("initialize", "c", false))
		add(method("notifications/initialized", "c", true))
		add(method("ping", "cs", false))
		add(method("logging/setLevel", "c", false))
	}
	return p
}

var (
	protoOld = testProtocol(revOld, false)
	protoNew = testProtocol(revNew, true)
)

// stamp adds resultType (and the cache fields) to stateless results.
func stamp(res wire.Marshaler, s *protocol.Stamp) wire.Marshaler {
	b, err := wire.Marshal(res)
	if err != nil {
		return res
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return res
	}
	if _, ok := m["resultType"]; !ok {
		m["resultType"] = json.RawMessage(`"complete"`)
	}
	if s.CacheScope != "" {
		m["ttlMs"] = json.RawMessage(fmt.Sprint(s.TTLMs))
		m["cacheScope"] = json.RawMessage(`"` + s.CacheScope + `"`)
	}
	out, _ := json.Marshal(m)
	return wire.Raw(out)
}

// tools is the tool list of the test server.
const tools = `{"tools":[
{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},
{"name":"progress","inputSchema":{"type":"object"}},
{"name":"gate","inputSchema":{"type":"object"}},
{"name":"block","inputSchema":{"type":"object"}},
{"name":"deaf","inputSchema":{"type":"object"}},
{"name":"sample","inputSchema":{"type":"object"}},
{"name":"trigger","inputSchema":{"type":"object"}},
{"name":"whoami","inputSchema":{"type":"object"}},
{"name":"headers","inputSchema":{"type":"object","properties":{
  "region":{"type":"string","x-mcp-header":"Region"},
  "priority":{"type":"integer","x-mcp-header":"Priority"},
  "verbose":{"type":"boolean","x-mcp-header":"Verbose"},
  "config":{"type":"object","properties":{"zone":{"type":["string","null"],"x-mcp-header":"Zone"}}},
  "query":{"type":"string"}}}}
]}`

// testServer serves the test revisions.
type testServer struct {
	srv *mcp.Server

	mu        sync.Mutex
	toolList  string                   // replaces tools when set
	gates     map[string]chan struct{} // "gate" waits on gates[args.key]
	started   chan string              // "block", "gate" and "deaf" report they run
	cancelled chan string              // "block" reports its cancellation
}

type authKey struct{}

func newTestServer() *testServer {
	return &testServer{gates: map[string]chan struct{}{}, started: make(chan string, 100), cancelled: make(chan string, 100)}
}

func (s *testServer) gate(key string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gates[key]
	if g == nil {
		g = make(chan struct{})
		s.gates[key] = g
	}
	return g
}

func (s *testServer) Has(method string) bool {
	switch method {
	case "tools/list", "tools/call", "prompts/get", "resources/read":
		return true
	}
	return false
}

func text(s string) wire.Marshaler {
	b, _ := json.Marshal(s)
	return wire.Raw(`{"content":[{"type":"text","text":` + string(b) + `}]}`)
}

func (s *testServer) Serve(ctx context.Context, method string, params wire.Raw) (wire.Marshaler, error) {
	switch method {
	case "tools/list":
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.toolList != "" {
			return wire.Raw(s.toolList), nil
		}
		return wire.Raw(tools), nil
	case "prompts/get":
		name, _ := stringMember(params, "name")
		return wire.Raw(`{"messages":[{"role":"user","content":{"type":"text","text":"` + name + `"}}]}`), nil
	case "resources/read":
		uri, _ := stringMember(params, "uri")
		b, _ := json.Marshal(uri)
		return wire.Raw(`{"contents":[{"uri":` + string(b) + `,"text":"x"}]}`), nil
	case "tools/call":
	default:
		return nil, jsonrpc.MethodNotFound(method)
	}
	name, _ := stringMember(params, "name")
	args, _ := wire.MemberOf(params, "arguments")
	var a struct {
		Text string `json:"text"`
		Key  string `json:"key"`
	}
	if len(args) > 0 {
		_ = json.Unmarshal(args, &a)
	}
	r := mcp.RequestFrom(ctx)
	switch name {
	case "echo", "headers":
		return text(a.Text), nil
	case "progress":
		for i := 1; i <= 3; i++ {
			if err := r.Progress(ctx, float64(i), 3, ""); err != nil {
				return nil, err
			}
			time.Sleep(5 * time.Millisecond)
		}
		_ = r.Log(ctx, "info", "test", wire.Raw(`"logged"`))
		return text("done"), nil
	case "gate":
		// progress 1, wait for the gate, progress 2, result.
		_ = r.Progress(ctx, 1, 2, "")
		s.started <- a.Key
		select {
		case <-s.gate(a.Key):
		case <-ctx.Done():
			s.cancelled <- a.Key
			return nil, ctx.Err()
		}
		_ = r.Progress(ctx, 2, 2, "")
		return text("opened " + a.Key), nil
	case "deaf":
		// A handler that does not heed cancellation: it waits for its gate.
		s.started <- a.Key
		<-s.gate(a.Key)
		return text("heard " + a.Key), nil
	case "block":
		s.started <- a.Key
		<-ctx.Done()
		s.cancelled <- a.Key
		return nil, ctx.Err()
	case "sample":
		var res wire.Raw
		err := mcp.ClientOf(ctx).Call(ctx, "sampling/createMessage", wire.Raw(`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}`), &res)
		if err != nil {
			return nil, err
		}
		return text("sampled " + string(res)), nil
	case "trigger":
		s.srv.NotifyListChanged(ctx, mcp.ToolsList)
		return text("triggered"), nil
	case "whoami":
		who, _ := ctx.Value(authKey{}).(string)
		return text(who), nil
	}
	return nil, mcp.InvalidParams("/params/name", "unknown tool "+name)
}

// clientHandler answers sampling for the client side.
type clientHandler struct{}

func (clientHandler) Has(method string) bool { return method == "sampling/createMessage" }

func (clientHandler) Serve(_ context.Context, method string, params wire.Raw) (wire.Marshaler, error) {
	return wire.Raw(`{"role":"assistant","content":{"type":"text","text":"from client"},"model":"m"}`), nil
}

// fixture is a running server for a test.
type fixture struct {
	t   *testing.T
	ts  *testServer
	srv *mcp.Server
	h   *Handler
	hs  *httptest.Server
	url string
	tr  *http.Transport
	c   *http.Client
}

func newFixture(t *testing.T, o Options, wrap ...func(http.Handler) http.Handler) *fixture {
	t.Helper()
	return newFixtureOf(t, []*protocol.Protocol{protoOld, protoNew}, o, wrap...)
}

// newFixtureOf is newFixture serving the revisions protos.
func newFixtureOf(t *testing.T, protos []*protocol.Protocol, o Options, wrap ...func(http.Handler) http.Handler) *fixture {
	t.Helper()
	ts := newTestServer()
	mounts := make([]mcp.Mount, len(protos))
	for i, p := range protos {
		mounts[i] = mcp.Mount{Protocol: p, Handler: ts}
	}
	srv, err := mcp.NewServer(mcp.ServerOptions{Name: "test", Version: "1", ListChanged: true, Features: []mcp.Feature{listen.Feature(listen.Options{})}}, mounts...)
	if err != nil {
		t.Fatal(err)
	}
	ts.srv = srv
	h := NewHandler(srv, o)
	mux := http.NewServeMux()
	var hh http.Handler = h
	for _, w := range wrap {
		hh = w(hh)
	}
	mux.Handle("/mcp", hh)
	mux.Handle(wellKnownPRM+"/", h)
	hs := httptest.NewServer(mux)
	tr := &http.Transport{}
	f := &fixture{t: t, ts: ts, srv: srv, h: h, hs: hs, url: hs.URL + "/mcp", tr: tr, c: &http.Client{Transport: tr}}
	t.Cleanup(func() {
		h.Close()
		hs.CloseClientConnections()
		hs.Close()
		tr.CloseIdleConnections()
	})
	return f
}

// meta is the _meta of a stateless request.
func meta(extra string) string {
	m := `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + revNew + `","io.modelcontextprotocol/clientCapabilities":{}`
	if extra != "" {
		m += "," + extra
	}
	return m + "}"
}

// do sends a request and returns the response with its body read (unless
// it is SSE, whose body is left open).
func (f *fixture) do(ctx context.Context, method string, hdr map[string]string, body string) *http.Response {
	f.t.Helper()
	var rd *strings.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequestWithContext(ctx, method, f.url, rd)
	} else {
		req, err = http.NewRequestWithContext(ctx, method, f.url, nil)
	}
	if err != nil {
		f.t.Fatal(err)
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		if v == "" {
			req.Header.Del(k)
			continue
		}
		req.Header[k] = []string{v} // as given: names are not canonicalized
	}
	resp, err := f.c.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp
}

// statelessHeaders are the headers of a stateless request.
func statelessHeaders(method, name string) map[string]string {
	h := map[string]string{"MCP-Protocol-Version": revNew, "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// rpc is a decoded JSON-RPC message.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func decodeRPC(t *testing.T, b []byte) rpc {
	t.Helper()
	var m rpc
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON-RPC: %v: %s", err, b)
	}
	return m
}

// events reads the SSE events of a response until it ends or n events
// (with data or id) came.
func readEvents(t *testing.T, resp *http.Response, n int) []sseEvent {
	t.Helper()
	rd := newSSEReader(resp.Body, 1<<20)
	var out []sseEvent
	for n < 0 || len(out) < n {
		ev, err := rd.next()
		if err != nil {
			break
		}
		out = append(out, ev)
	}
	return out
}

var errTest = errors.New("test")
