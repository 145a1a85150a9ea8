package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/features"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/stdio"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v25 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20251125"
	v26 "github.com/mcpgen/mcpgen/examples/everything/mcp/v20260728"
)

// The middleware of a server and of a client see every message in both
// directions, on both transports and both eras, whether a handler or a
// declared item (the catalog) answers it; they can refuse one; a panic
// is an internal error and the process lives on.

// seen is what a recording middleware saw of one message.
type seen struct {
	out                 bool
	method, name        string
	notification        bool
	revision, transport string
	session, principal  string
	header              string // the X-Test header, if the transport has one
	code                int64  // the error code of the outcome, 0 for none
	took                time.Duration
}

// recorder is a middleware that records each message and refuses the
// incoming ones named refuse and the outgoing requests of method block.
type recorder struct {
	refuse, block string

	mu   sync.Mutex
	seen []seen
}

var errRefused = jsonrpc.NewError(-32001, "refused by middleware")

func (r *recorder) middleware(next rt.MessageHandler) rt.MessageHandler {
	return func(ctx context.Context, m *rt.Message) (wire.Marshaler, error) {
		start := time.Now()
		var res wire.Marshaler
		var err error
		switch {
		case !m.Outgoing() && r.refuse != "" && m.Name() == r.refuse:
			err = errRefused
		case m.Outgoing() && r.block != "" && m.Method() == r.block:
			err = errRefused
		default:
			res, err = next(ctx, m)
		}
		s := seen{out: m.Outgoing(), method: m.Method(), name: m.Name(), notification: m.IsNotification(), revision: m.Revision(),
			transport: m.Transport(), session: m.SessionID(), principal: m.Principal(), took: time.Since(start)}
		if h := m.Header(); h != nil {
			s.header = h.Get("X-Test")
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			s.code = je.Code
		} else if err != nil {
			s.code = -1
		}
		r.mu.Lock()
		r.seen = append(r.seen, s)
		r.mu.Unlock()
		return res, err
	}
}

// find returns what the recorder saw of the messages of method (and name,
// when not empty) in direction out.
func (r *recorder) find(out bool, method, name string) []seen {
	r.mu.Lock()
	defer r.mu.Unlock()
	var got []seen
	for _, s := range r.seen {
		if s.out == out && s.method == method && (name == "" || s.name == name) {
			got = append(got, s)
		}
	}
	return got
}

// mwHandler25 and mwHandler26 are handlers of the two eras: handler_tool
// answers from the handler, ask asks the client for a sample (a request to
// the client in 2025-11-25, an input round in 2026-07-28), boom panics and
// header returns the X-Test header of the request.
type mwHandler25 struct{}

func (mwHandler25) ListTools(context.Context, *v25.PaginatedRequestParams) (*v25.ListToolsResult, error) {
	return decode[v25.ListToolsResult](toolList(mwTools()...))
}

func (mwHandler25) CallTool(ctx context.Context, p *v25.CallToolRequestParams) (v25.CallToolReply, error) {
	text, err := mwToolText(ctx, p.Name)
	if p.Name == "ask" {
		res, err := v25.PeerFrom(ctx).CreateMessage(ctx, &v25.CreateMessageRequestParams{MaxTokens: 10,
			Messages: []v25.SamplingMessage{{Role: v25.RoleUser, Content: &v25.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, err
		}
		text = "sampled " + res.Model
	} else if err != nil {
		return nil, err
	}
	return &v25.CallToolResult{Content: []v25.ContentBlock{&v25.TextContent{Text: text}}}, nil
}

// mwToolText is what the tools but ask answer, in either era.
func mwToolText(ctx context.Context, name string) (string, error) {
	switch name {
	case "handler_tool":
		return "from the handler", nil
	case "boom":
		panic("the handler panicked")
	case "header":
		return rt.RequestFrom(ctx).Header().Get("X-Test"), nil
	}
	return "", rt.InvalidParams("/params/name", "unknown tool "+name)
}

type mwHandler26 struct{}

func (mwHandler26) ListTools(context.Context, *v26.PaginatedRequestParams) (*v26.ListToolsResult, error) {
	return decode[v26.ListToolsResult](toolList(mwTools()...))
}

func (mwHandler26) CallTool(ctx context.Context, p *v26.CallToolRequestParams) (v26.CallToolReply, error) {
	text, err := mwToolText(ctx, p.Name)
	if p.Name == "ask" {
		x, _ := p.InputResponses.Get("s")
		r, ok := x.(*v26.CreateMessageResult)
		if !ok {
			return inputRequiredResult(ctx, nil, samplingAsk("s", "hi", 10))
		}
		text = "sampled " + r.Model
	} else if err != nil {
		return nil, err
	}
	return &v26.CallToolResult{Content: []v26.ContentBlock{&v26.TextContent{Text: text}}}, nil
}

func mwTools() []string {
	var defs []string
	for _, name := range []string{"handler_tool", "ask", "boom", "header"} {
		defs = append(defs, `{"name":"`+name+`","inputSchema":`+noArgsSchema()+`}`)
	}
	return defs
}

// mwServer is a server of both eras with a catalog tool (catalog_tool)
// beside the handlers, and rec as its middleware.
func mwServer(t *testing.T, rec *recorder, log *slog.Logger) *rt.Server {
	set := features.NewSet().AddTools(features.Tool{Name: "catalog_tool", InputSchema: wire.Raw(noArgsSchema()),
		Call: func(context.Context, wire.Raw) (*features.Result, error) {
			return features.TextResult("from the catalog"), nil
		}})
	var mws []rt.Middleware
	if rec != nil {
		mws = append(mws, rec.middleware)
	}
	srv, err := rt.NewServer(rt.ServerOptions{Name: "mw", Version: "1", Features: []rt.Feature{set}, Middleware: mws, Logger: log},
		v25.Mount(mwHandler25{}), v26.Mount(mwHandler26{}))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// mwTransport is a transport to srv: stdio pipes in process, or Streamable
// HTTP with the X-Test header and the principal "alice".
func mwTransport(t *testing.T, srv *rt.Server, overHTTP bool) rt.ClientTransport {
	if !overHTTP {
		return &stdio.InProcessTransport{Server: srv}
	}
	h := streamhttp.NewHandler(srv, streamhttp.Options{Auth: func(r *http.Request) (context.Context, error) {
		return rt.WithPrincipal(r.Context(), "alice"), nil
	}})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { h.Close(); ts.Close() })
	return &streamhttp.ClientTransport{URL: ts.URL, Header: http.Header{"X-Test": {"from the client"}}}
}

// callText calls a tool in the session's era and returns its text.
func callText(ctx context.Context, cs *rt.ClientSession, name string) (string, error) {
	if cs.Stateless() {
		res, err := v26.NewClient(cs).CallTool(ctx, &v26.CallToolRequestParams{Name: name})
		if err != nil {
			return "", err
		}
		return res.Content[0].(*v26.TextContent).Text, nil
	}
	res, err := v25.NewClient(cs).CallTool(ctx, &v25.CallToolRequestParams{Name: name})
	if err != nil {
		return "", err
	}
	return res.Content[0].(*v25.TextContent).Text, nil
}

// TestMiddleware: {stdio, HTTP} × {2025-11-25, 2026-07-28} × {server,
// client} × {handler, catalog}, with a refusal on each side and the
// requests to the client.
func TestMiddleware(t *testing.T) {
	for _, transport := range []string{rt.TransportStdio, rt.TransportHTTP} {
		for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
			rev := map[rt.Era]string{rt.Stateful: "2025-11-25", rt.Stateless: "2026-07-28"}[era]
			t.Run(transport+"/"+rev, func(t *testing.T) {
				srvRec := &recorder{refuse: "refused_by_server"}
				cliRec := &recorder{block: "prompts/list"}
				srv := mwServer(t, srvRec, nil)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cs, err := rt.Connect(ctx, mwTransport(t, srv, transport == rt.TransportHTTP),
					rt.ClientOptions{Era: era, Middleware: []rt.Middleware{cliRec.middleware}},
					v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()

				// A handler and a catalog item answer.
				for tool, want := range map[string]string{"handler_tool": "from the handler", "catalog_tool": "from the catalog"} {
					if got, err := callText(ctx, cs, tool); err != nil || got != want {
						t.Fatalf("%s: %q, %v", tool, got, err)
					}
					in := srvRec.find(false, "tools/call", tool)
					if len(in) != 1 || in[0].code != 0 || in[0].revision != rev || in[0].transport != transport || in[0].notification {
						t.Errorf("server middleware saw %s as %+v", tool, in)
					}
					if transport == rt.TransportHTTP && (in[0].header != "from the client" || in[0].principal != "alice") {
						t.Errorf("server middleware saw %s with header %q, principal %q", tool, in[0].header, in[0].principal)
					}
					if transport == rt.TransportHTTP && era == rt.Stateful && in[0].session == "" {
						t.Errorf("server middleware saw %s without its session id", tool)
					}
				}
				out := cliRec.find(true, "tools/call", "")
				if len(out) != 2 || out[0].revision != rev || out[0].transport != transport || out[0].code != 0 {
					t.Errorf("client middleware saw tools/call as %+v", out)
				}

				// Handlers read the transport's header.
				want := ""
				if transport == rt.TransportHTTP {
					want = "from the client"
				}
				if got, err := callText(ctx, cs, "header"); err != nil || got != want {
					t.Errorf("header: %q, %v; want %q", got, err, want)
				}

				// The server's middleware refuses: the client gets its error.
				var je *jsonrpc.Error
				if _, err := callText(ctx, cs, "refused_by_server"); !errors.As(err, &je) || je.Code != errRefused.Code {
					t.Errorf("refused by the server: %v", err)
				}
				if got := srvRec.find(false, "tools/call", "refused_by_server"); len(got) != 1 || got[0].code != errRefused.Code {
					t.Errorf("server middleware saw the refusal as %+v", got)
				}
				// The client's middleware refuses: the server never sees it.
				var lp wire.Raw
				if err := cs.Call(ctx, "prompts/list", nil, &lp); !errors.Is(err, errRefused) {
					t.Errorf("refused by the client: %v", err)
				}
				if got := srvRec.find(false, "prompts/list", ""); len(got) != 0 {
					t.Errorf("the server saw a refused call: %+v", got)
				}

				// Asking the client for input: a request from the server
				// (2025-11-25) or an input round (2026-07-28), through
				// both sides' middleware.
				if got, err := callText(ctx, cs, "ask"); err != nil || !strings.HasPrefix(got, "sampled ") {
					t.Fatalf("ask: %q, %v", got, err)
				}
				if era == rt.Stateful {
					if got := srvRec.find(true, "sampling/createMessage", ""); len(got) != 1 || got[0].code != 0 || got[0].notification || got[0].revision != rev {
						t.Errorf("server middleware saw its request to the client as %+v", got)
					}
					if got := cliRec.find(false, "sampling/createMessage", ""); len(got) != 1 || got[0].code != 0 {
						t.Errorf("client middleware saw the server's request as %+v", got)
					}
					// Notifications too: the client's initialized.
					if got := srvRec.find(false, "notifications/initialized", ""); len(got) != 1 || !got[0].notification {
						t.Errorf("server middleware saw notifications/initialized as %+v", got)
					}
					if got := cliRec.find(true, "notifications/initialized", ""); len(got) != 1 || !got[0].notification {
						t.Errorf("client middleware saw notifications/initialized as %+v", got)
					}
				} else if got := srvRec.find(false, "tools/call", "ask"); len(got) != 2 {
					t.Errorf("server middleware saw %d rounds of ask, want 2", len(got))
				}
			})
		}
	}
}

// TestRecovery: a panicking handler answers -32603 and is logged with its
// stack; the process and the session go on. A panicking client handler
// answers the server's request -32603 the same way.
func TestRecovery(t *testing.T) {
	for _, transport := range []string{rt.TransportStdio, rt.TransportHTTP} {
		for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
			for _, withMiddleware := range []bool{false, true} {
				name := transport + "/" + map[rt.Era]string{rt.Stateful: "2025-11-25", rt.Stateless: "2026-07-28"}[era]
				if withMiddleware {
					name += "/middleware"
				}
				t.Run(name, func(t *testing.T) {
					var logs capturedLog
					log := logs.logger(slog.LevelInfo)
					var rec *recorder
					if withMiddleware {
						rec = &recorder{}
					}
					srv := mwServer(t, rec, log)
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					cs, err := rt.Connect(ctx, mwTransport(t, srv, transport == rt.TransportHTTP), rt.ClientOptions{Era: era},
						v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
					if err != nil {
						t.Fatal(err)
					}
					defer cs.Close()
					var je *jsonrpc.Error
					if _, err := callText(ctx, cs, "boom"); !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError {
						t.Fatalf("boom: %v", err)
					}
					if got, err := callText(ctx, cs, "handler_tool"); err != nil || got != "from the handler" {
						t.Fatalf("after the panic: %q, %v", got, err)
					}
					text := logs.String()
					if !strings.Contains(text, "the handler panicked") || !strings.Contains(text, "stack=") || !strings.Contains(text, "method=tools/call") {
						t.Errorf("log: %s", text)
					}
					if rec != nil {
						if got := rec.find(false, "tools/call", "boom"); len(got) != 1 || got[0].code != jsonrpc.CodeInternalError {
							t.Errorf("middleware saw boom as %+v", got)
						}
					}
				})
			}
		}
	}
	t.Run("client handler", func(t *testing.T) {
		srv := mwServer(t, nil, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var logs capturedLog
		cs, err := rt.Connect(ctx, mwTransport(t, srv, true), rt.ClientOptions{Era: rt.Stateful, Logger: logs.logger(slog.LevelInfo)},
			v25.Mount(panickingSampler{}))
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		var je *jsonrpc.Error
		if _, err := callText(ctx, cs, "ask"); !errors.As(err, &je) || je.Code != jsonrpc.CodeInternalError {
			t.Fatalf("ask with a panicking sampler: %v", err)
		}
		if got, err := callText(ctx, cs, "handler_tool"); err != nil || got != "from the handler" {
			t.Fatalf("after the panic: %q, %v", got, err)
		}
		if !strings.Contains(logs.String(), "the sampler panicked") {
			t.Errorf("client log: %s", logs.String())
		}
	})
}

type panickingSampler struct{ v25.UnimplementedClientHandler }

func (panickingSampler) CreateMessage(context.Context, *v25.CreateMessageRequestParams) (v25.CreateMessageReply, error) {
	panic("the sampler panicked")
}

// capturedLog collects text a test reads while it may still be written:
// a logger's (logger), a server process's output.
type capturedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capturedLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

// logger writes to c, from level on.
func (c *capturedLog) logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(c, &slog.HandlerOptions{Level: level}))
}

// String is what was logged so far.
func (c *capturedLog) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// TestRequestLog: the slog request log writes a line per message, with
// the outcome's error code.
func TestRequestLog(t *testing.T) {
	var logs capturedLog
	log := logs.logger(slog.LevelDebug)
	set := features.NewSet().AddTools(features.Tool{Name: "catalog_tool", InputSchema: wire.Raw(noArgsSchema()),
		Call: func(context.Context, wire.Raw) (*features.Result, error) { return features.TextResult("ok"), nil }})
	srv, err := rt.NewServer(rt.ServerOptions{Name: "mw", Version: "1", Features: []rt.Feature{set}, Middleware: []rt.Middleware{rt.RequestLog(log, slog.LevelInfo)}},
		v26.Mount(mwHandler26{}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	cs, err := rt.Connect(ctx, &stdio.InProcessTransport{Server: srv}, rt.ClientOptions{Era: rt.Stateless}, v26.Mount(modernHandler{}))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := callText(ctx, cs, "catalog_tool"); err != nil {
		t.Fatal(err)
	}
	_, _ = callText(ctx, cs, "no_such_tool")
	text := logs.String()
	for _, want := range []string{
		"level=INFO msg=\"mcp: message\" dir=in method=tools/call id=",
		"name=catalog_tool transport=stdio revision=2026-07-28 duration=",
		"level=WARN msg=\"mcp: message\" dir=in method=tools/call id=",
		"name=no_such_tool transport=stdio revision=2026-07-28 duration=",
		"code=-32602",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("log lacks %q:\n%s", want, text)
		}
	}
}

// metaCarrier is a middleware that sets _meta member key on the messages
// it sends (to value) and records the value of key in the _meta of those
// it receives, by method.
type metaCarrier struct {
	key, value string

	mu  sync.Mutex
	got map[string]string
}

func (c *metaCarrier) middleware(next rt.MessageHandler) rt.MessageHandler {
	return func(ctx context.Context, m *rt.Message) (wire.Marshaler, error) {
		if m.Outgoing() {
			m.SetMeta(c.key, wire.Raw(`"`+c.value+`"`))
		} else if meta, ok := wire.MemberOf(m.Params(), "_meta"); ok {
			if v, ok := wire.MemberOf(meta, c.key); ok {
				c.mu.Lock()
				c.got[m.Method()] = string(v)
				c.mu.Unlock()
			}
		}
		return next(ctx, m)
	}
}

// TestMiddlewareMeta: middleware carries context in _meta both ways
// (Message.SetMeta, as trace context travels): what the client's sets on
// a tools/call reaches the server's middleware, and what the server's sets
// on its request to the client (sampling) reaches the client's, on both
// transports and both eras; the params' own _meta keys stay.
func TestMiddlewareMeta(t *testing.T) {
	for _, transport := range []string{rt.TransportStdio, rt.TransportHTTP} {
		for _, era := range []rt.Era{rt.Stateful, rt.Stateless} {
			t.Run(transport+"/"+map[rt.Era]string{rt.Stateful: "2025-11-25", rt.Stateless: "2026-07-28"}[era], func(t *testing.T) {
				onServer := &metaCarrier{key: "traceparent", value: "00-server", got: map[string]string{}}
				onClient := &metaCarrier{key: "traceparent", value: "00-client", got: map[string]string{}}
				own := &metaCarrier{key: "custom", got: map[string]string{}}
				set := features.NewSet()
				srv, err := rt.NewServer(rt.ServerOptions{Name: "mw", Version: "1", Features: []rt.Feature{set}, Middleware: []rt.Middleware{onServer.middleware, own.middleware}},
					v25.Mount(mwHandler25{}), v26.Mount(mwHandler26{}))
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cs, err := rt.Connect(ctx, mwTransport(t, srv, transport == rt.TransportHTTP),
					rt.ClientOptions{Era: era, Middleware: []rt.Middleware{onClient.middleware}, Capabilities: wire.Raw(`{"sampling":{}}`)},
					v25.Mount(clientHandler{}), v26.Mount(modernHandler{}))
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				var res wire.Raw
				if err := cs.Call(ctx, "tools/call", wire.Raw(`{"name":"ask","_meta":{"progressToken":"p1","custom":"kept"}}`), &res); err != nil {
					t.Fatal(err)
				}
				if got := onServer.got["tools/call"]; got != `"00-client"` {
					t.Errorf("the server's middleware got traceparent %q on tools/call", got)
				}
				if got := own.got["tools/call"]; got != `"kept"` {
					t.Errorf("the params' own _meta member: %q", got)
				}
				if era == rt.Stateful {
					if got := onClient.got["sampling/createMessage"]; got != `"00-server"` {
						t.Errorf("the client's middleware got traceparent %q on sampling/createMessage", got)
					}
				}
			})
		}
	}
}
