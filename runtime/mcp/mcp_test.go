package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/protocol/protocoltest"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The runtime is revision-agnostic: these tests mount hand-written method
// tables, a stateful "2025-11-25" and a stateless "2026-07-28". The
// generated packages are exercised end to end in examples/everything and
// spectest.

type echoHandler struct{}

func serveEcho(ctx context.Context, _ any, params wire.Raw) (wire.Marshaler, error) {
	r := RequestFrom(ctx)
	_ = r.Log(ctx, "info", "test", wire.Raw(`"logged"`))
	_ = r.Progress(ctx, 1, 2, "")
	return append(wire.Raw(`{"echo":`), append(paramsOrNull(params), '}')...), nil
}

func paramsOrNull(p wire.Raw) wire.Raw {
	if len(p) == 0 {
		return wire.Raw("null")
	}
	return p
}

func always(any) bool { return true }

// testProtocols are the hand-written method tables of protocoltest, whose
// tools/call echoes.
func testProtocols() (stateful, stateless *protocol.Protocol) {
	return protocoltest.Revisions(serveEcho)
}

// statelessRequest is a stateless Request of method in revision p, as s
// serves it: declaring version, naming name (params.name), with ctx.
func statelessRequest(s *Server, p *protocol.Protocol, method, version, name string, ctx context.Context) *Request {
	r := &Request{server: s, Method: method, Protocol: p, route: &route{method: p.Methods[method]}, ctx: ctx}
	r.in.meta.protocolVersion = version
	r.in.named[0], r.in.has = name, 1
	// The params a retry repeats: a requestState binds them.
	r.in.req = &jsonrpc.Request{Method: method, Params: wire.Raw(`{"name":` + strconv.Quote(name) + `}`)}
	r.client = metaClient{r}
	return r
}

func newTestServer(t *testing.T, opts ServerOptions) *Server {
	t.Helper()
	a, b := testProtocols()
	if opts.Name == "" {
		opts.Name, opts.Version = "test", "1"
	}
	s, err := NewServer(opts, Mount{Protocol: a, Handler: echoHandler{}}, Mount{Protocol: b, Handler: echoHandler{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// recorder is an Outbound and a Caller that records notifications.
type recorder struct {
	mu    sync.Mutex
	notes []string
}

func (r *recorder) Notify(_ context.Context, method string, params wire.Marshaler) error {
	b := []byte("null")
	if params != nil {
		b, _ = wire.Marshal(params)
	}
	r.mu.Lock()
	r.notes = append(r.notes, method+" "+string(b))
	r.mu.Unlock()
	return nil
}

func (r *recorder) Call(context.Context, string, wire.Marshaler, wire.Unmarshaler) error {
	return errors.New("no calls")
}

func (r *recorder) CallInto(context.Context, string, wire.Marshaler, wire.Into) error {
	return errors.New("no calls")
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.notes...)
}

const meta = protocoltest.Meta

func req(method, params string) *jsonrpc.Request { return protocoltest.Request(method, params) }

func encode(t *testing.T, m wire.Marshaler) string {
	t.Helper()
	if m == nil {
		return ""
	}
	b, err := wire.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStateless(t *testing.T) {
	s := newTestServer(t, ServerOptions{})
	tests := []struct {
		name, method, params string
		code                 int64  // expected error code, 0 for a result
		want                 string // substring of the result or error message
	}{
		{"missing meta", "tools/call", `{}`, jsonrpc.CodeInvalidParams, "missing _meta keys: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities"},
		{"missing caps", "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, jsonrpc.CodeInvalidParams, "clientCapabilities"},
		{"unsupported version", "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}}`, CodeUnsupportedProtocolVersion, "v999"},
		{"stateful version", "tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`, CodeUnsupportedProtocolVersion, "2025-11-25"},
		{"unknown method", "ping", `{` + meta + `}}`, jsonrpc.CodeMethodNotFound, "ping"},
		{"server-to-client method", "sampling/createMessage", `{` + meta + `}}`, jsonrpc.CodeMethodNotFound, "sampling"},
		{"unimplemented", "prompts/get", `{` + meta + `}}`, jsonrpc.CodeMethodNotFound, "prompts/get"},
		{"discover", "server/discover", `{` + meta + `}}`, 0, `"supportedVersions":["2026-07-28","2025-11-25"]`},
		{"discover capabilities", "server/discover", `{` + meta + `}}`, 0, `"tools":{}`},
		{"stamped list", "tools/list", `{` + meta + `}}`, 0, `"tools":[]`},
		{"call", "tools/call", `{` + meta + `},"name":"x"}`, 0, `"echo":`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &recorder{}
			res, err := s.handleStateless(context.Background(), req(tt.method, tt.params), out)
			if tt.code != 0 {
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != tt.code || !strings.Contains(je.Message+string(je.Data), tt.want) {
					t.Fatalf("err = %v, want code %d mentioning %q", err, tt.code, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(t, res); !strings.Contains(got, tt.want) {
				t.Errorf("result %s lacks %s", got, tt.want)
			}
		})
	}
}

func TestStatelessLogLevelAndProgress(t *testing.T) {
	s := newTestServer(t, ServerOptions{})
	out := &recorder{}
	// Without logLevel: no log messages; progress only with a token.
	_, err := s.handleStateless(context.Background(), req("tools/call", `{`+meta+`},"name":"x"}`), out)
	if err != nil || len(out.all()) != 0 {
		t.Fatalf("err %v, notifications %v", err, out.all())
	}
	out = &recorder{}
	_, err = s.handleStateless(context.Background(), req("tools/call", `{`+meta+`,"io.modelcontextprotocol/logLevel":"debug","progressToken":"p1"},"name":"x"}`), out)
	notes := out.all()
	if err != nil || len(notes) != 2 || !strings.HasPrefix(notes[0], "notifications/message") || !strings.Contains(notes[1], `"progressToken":"p1"`) {
		t.Fatalf("err %v, notifications %v", err, notes)
	}
}

func TestDiscoverLikeStatelessErrorsListVersions(t *testing.T) {
	_, b := testProtocols()
	s, err := NewServer(ServerOptions{Name: "modern-only", Version: "1"}, Mount{Protocol: b, Handler: echoHandler{}})
	if err != nil {
		t.Fatal(err)
	}
	sess := s.NewSession(&recorder{}, nil)
	_, err = sess.handle(context.Background(), req("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`), &recorder{})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != CodeUnsupportedProtocolVersion || !strings.Contains(string(je.Data), `"supported":["2026-07-28"]`) {
		t.Errorf("initialize on a modern-only server: %v", err)
	}
}

func TestStatefulLifecycle(t *testing.T) {
	s := newTestServer(t, ServerOptions{})
	var cancelled []string
	sess := s.NewSession(&recorder{}, func(id jsonrpc.ID) bool { cancelled = append(cancelled, id.String()); return true })
	ctx := context.Background()
	out := &recorder{}
	if _, err := sess.handle(ctx, req("tools/list", ""), out); err == nil {
		t.Error("a request before initialize must fail")
	}
	if res, err := sess.handle(ctx, req("ping", ""), out); err != nil || encode(t, res) != "{}" {
		t.Errorf("ping before initialize: %v %s", err, encode(t, res))
	}
	// An unknown version gets the server's latest.
	res, err := sess.handle(ctx, req("initialize", `{"protocolVersion":"2024-01-01","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}`), out)
	if err != nil || !strings.Contains(encode(t, res), `"protocolVersion":"2025-11-25"`) || !strings.Contains(encode(t, res), `"logging":{}`) {
		t.Fatalf("initialize: %v %s", err, encode(t, res))
	}
	if _, err := sess.handle(ctx, req("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`), out); err == nil {
		t.Error("a second initialize must fail")
	}
	if _, err := sess.handle(ctx, req("logging/setLevel", `{"level":"error"}`), out); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.handle(ctx, req("tools/call", `{"name":"x"}`), out); err != nil {
		t.Fatal(err)
	}
	if len(out.all()) != 0 {
		t.Errorf("info log sent at level error: %v", out.all())
	}
	sess.handle(ctx, &jsonrpc.Request{Method: "notifications/cancelled", IsNotification: true, Params: wire.Raw(`{"requestId":"r7"}`)}, out)
	if len(cancelled) != 1 || cancelled[0] != `"r7"` {
		t.Errorf("cancelled = %v", cancelled)
	}
	if r := sessRequest(sess); !r.HasClientCapability("roots") || r.HasClientCapability("sampling") {
		t.Error("client capabilities from initialize")
	}
}

func sessRequest(sess *Session) *Request {
	return &Request{client: sess, Protocol: sess.Protocol(), server: sess.srv}
}

func TestProgressMustIncrease(t *testing.T) {
	out := &recorder{}
	_, p := testProtocols()
	r := &Request{out: out, Protocol: p, in: inbound{meta: requestMeta{hasProgress: true, progressToken: wire.IntValue(3)}}}
	ctx := context.Background()
	if err := r.Progress(ctx, 1, -1, "a"); err != nil {
		t.Fatal(err)
	}
	if err := r.Progress(ctx, 1, -1, ""); !errors.Is(err, ErrProgress) {
		t.Errorf("equal progress: %v", err)
	}
	if err := r.Progress(ctx, 2.5, 10, ""); err != nil {
		t.Fatal(err)
	}
	r.finish()
	if err := r.Progress(ctx, 3, 10, ""); !errors.Is(err, ErrProgress) {
		t.Errorf("progress after the response: %v", err)
	}
	notes := out.all()
	if len(notes) != 2 || !strings.Contains(notes[0], `"progressToken":3,"progress":1,"message":"a"`) || !strings.Contains(notes[1], `"progress":2.5,"total":10`) {
		t.Errorf("notifications: %v", notes)
	}
}

func TestRequestState(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s := newTestServer(t, ServerOptions{StateKey: []byte("k"), StateTTL: time.Minute, Now: func() time.Time { return now }})
	_, p := testProtocols()
	r := statelessRequest(s, p, "tools/call", "2026-07-28", "tool-a", nil)
	state := r.SealState([]byte("step-2"))
	if got, err := r.OpenState(state); err != nil || string(got) != "step-2" {
		t.Fatalf("OpenState = %q, %v", got, err)
	}
	other := statelessRequest(s, p, "tools/call", "2026-07-28", "tool-b", nil)
	tests := map[string]func() ([]byte, error){
		"tampered": func() ([]byte, error) { return r.OpenState(state + "A") },
		"flipped": func() ([]byte, error) {
			// One character changed (to another: never to itself).
			b := []byte(state)
			b[5] = map[bool]byte{true: 'y', false: 'x'}[b[5] == 'x']
			return r.OpenState(string(b))
		},
		"other tool": func() ([]byte, error) { return other.OpenState(state) },
		"not base64": func() ([]byte, error) { return r.OpenState("!!!") },
		"empty":      func() ([]byte, error) { return r.OpenState("") },
		"other server key": func() ([]byte, error) {
			o := statelessRequest(newTestServer(t, ServerOptions{StateKey: []byte("other")}), p, "tools/call", "2026-07-28", "tool-a", nil)
			return o.OpenState(state)
		},
	}
	for name, open := range tests {
		if _, err := open(); err != ErrBadState {
			t.Errorf("%s: err = %v, want ErrBadState", name, err)
		}
	}
	now = now.Add(2 * time.Minute)
	if _, err := r.OpenState(state); err != ErrBadState {
		t.Errorf("expired: %v", err)
	}
}

// TestStateKeyRotation: instances sharing StateKey open each other's
// requestState; after a rotation, a server whose PreviousStateKeys hold
// the old key still opens what the old key sealed (and seals with the
// new one only), and one without it refuses them.
func TestStateKeyRotation(t *testing.T) {
	_, p := testProtocols()
	sealed := func(s *Server) string {
		return statelessRequest(s, p, "tools/call", "2026-07-28", "tool-a", nil).SealState([]byte("step-2"))
	}
	open := func(s *Server, state string) ([]byte, error) {
		return statelessRequest(s, p, "tools/call", "2026-07-28", "tool-a", nil).OpenState(state)
	}
	a, b := newTestServer(t, ServerOptions{StateKey: []byte("old")}), newTestServer(t, ServerOptions{StateKey: []byte("old")})
	byOld := sealed(a)
	if got, err := open(b, byOld); err != nil || string(got) != "step-2" {
		t.Fatalf("another instance with the same key: %q %v", got, err)
	}
	rotated := newTestServer(t, ServerOptions{StateKey: []byte("new"), PreviousStateKeys: [][]byte{[]byte("old")}})
	if got, err := open(rotated, byOld); err != nil || string(got) != "step-2" {
		t.Errorf("a state sealed before the rotation: %q %v", got, err)
	}
	byNew := sealed(rotated)
	if _, err := open(a, byNew); err != ErrBadState {
		t.Errorf("the new key's state opened with the old key alone: %v (it must seal with the new one)", err)
	}
	if _, err := open(newTestServer(t, ServerOptions{StateKey: []byte("new")}), byOld); err != ErrBadState {
		t.Errorf("the old key's state once the old key is dropped: %v", err)
	}
	if _, err := NewServer(ServerOptions{Name: "x", Version: "1", PreviousStateKeys: [][]byte{nil}}); err == nil {
		t.Error("an empty previous key accepted")
	}
}

func TestMissingCapabilityError(t *testing.T) {
	_, p := testProtocols()
	err := MissingCapability(p, "elicitation", "form")
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != CodeMissingRequiredClientCapability || string(je.Data) != `{"requiredCapabilities":{"elicitation":{"form":{}}}}` {
		t.Errorf("%v %s", err, je.Data)
	}
}

func TestInvalidParamsNamesTheField(t *testing.T) {
	var p rawParams
	err := protocol.DecodeParams(wire.Raw(`{"name":5}`), &p, true)
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "/params/name") {
		t.Fatalf("%v", err)
	}
	var data struct {
		Violations []struct{ Pointer, Rule string }
	}
	if json.Unmarshal(je.Data, &data) != nil || len(data.Violations) != 1 || data.Violations[0].Pointer != "/params/name" {
		t.Errorf("data %s", je.Data)
	}
	if err := protocol.DecodeParams(nil, &p, true); err == nil || !strings.Contains(err.Error(), "/params") {
		t.Errorf("missing params: %v", err)
	}
	if err := protocol.DecodeParams(nil, &p, false); err != nil {
		t.Errorf("absent optional params: %v", err)
	}
}

// rawParams is a params type whose name must be a string.
type rawParams struct{ name string }

func (p *rawParams) DecodeJSON(d *wire.Decoder) error {
	return d.Object(func(key []byte) error {
		if string(key) == "name" {
			s, err := d.Str()
			p.name = s
			return wire.WithField(err, "name")
		}
		return d.Skip()
	})
}

func (p *rawParams) Validate() error { return nil }

// TestMountedTwice: two mounts of one protocol version are refused, and
// the error says how a draft gets a version of its own.
func TestMountedTwice(t *testing.T) {
	old, _ := testProtocols()
	_, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: old, Handler: struct{}{}}, Mount{Protocol: old, Handler: struct{}{}})
	if err == nil || !strings.Contains(err.Error(), "mounted twice") || !strings.Contains(err.Error(), "--protocol-version") {
		t.Errorf("err = %v, want mounted twice naming --protocol-version", err)
	}
}

// TestNotifyLog: a log message of no request reaches every initialized
// stateful session whose level admits it, and no other; NotifyLogTo
// those of the principals named.
func TestNotifyLog(t *testing.T) {
	s := newTestServer(t, ServerOptions{})
	ctx := context.Background()
	open := func(level string) *recorder {
		peer := &recorder{}
		sess := s.NewSession(peer, nil)
		ctx := WithPrincipal(ctx, level) // each session's principal is its level
		if _, err := sess.handle(ctx, req("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`), &recorder{}); err != nil {
			t.Fatal(err)
		}
		if _, err := sess.handle(ctx, &jsonrpc.Request{Method: "notifications/initialized", IsNotification: true}, &recorder{}); err != nil {
			t.Fatal(err)
		}
		if _, err := sess.handle(ctx, req("logging/setLevel", `{"level":"`+level+`"}`), &recorder{}); err != nil {
			t.Fatal(err)
		}
		return peer
	}
	debug, errorsOnly := open("debug"), open("error")
	unopened := &recorder{}
	s.NewSession(unopened, nil)
	s.NotifyLog(ctx, "warning", "backend", wire.Raw(`{"msg":"disk low"}`))
	if got := debug.all(); len(got) != 1 || got[0] != `notifications/message {"level":"warning","logger":"backend","data":{"msg":"disk low"}}` {
		t.Errorf("the debug session got %q", got)
	}
	if got := errorsOnly.all(); len(got) != 0 {
		t.Errorf("the session at level error got %q", got)
	}
	if got := unopened.all(); len(got) != 0 {
		t.Errorf("a session never initialized got %q", got)
	}
	// To one principal: their sessions only.
	s.NotifyLogTo(ctx, "error", "backend", wire.Raw(`"only for error"`), "error")
	if got := errorsOnly.all(); len(got) != 1 || !strings.Contains(got[0], "only for error") {
		t.Errorf("the principal told got %q", got)
	}
	if got := debug.all(); len(got) != 1 {
		t.Errorf("another principal's session got %q", got)
	}
	s.NotifyLogTo(ctx, "error", "backend", wire.Raw(`"nobody"`))
	if got := errorsOnly.all(); len(got) != 1 {
		t.Errorf("a log to no principal reached %q", got)
	}
}
