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

	"github.com/santhosh-tekuri/jsonschema/v5"

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

// testProtocols are hand-written method tables with what generated ones
// give the runtime: roles, the features the runtime answers, the id rule
// of errors, the code of a missing capability, the tool error.
func testProtocols() (stateful, stateless *protocol.Protocol) {
	methods := func(stateless bool) map[string]*protocol.Method {
		ms := map[string]*protocol.Method{
			"tools/call":             {Name: "tools/call", FromClient: true, Implemented: always, Serve: serveEcho, ValidateParams: protocol.NoParams, NameParam: "name", Role: protocol.RoleToolsCall},
			"tools/list":             {Name: "tools/list", FromClient: true, Implemented: always, Serve: func(context.Context, any, wire.Raw) (wire.Marshaler, error) { return wire.Raw(`{"tools":[]}`), nil }, ValidateParams: protocol.NoParams, Cacheable: stateless, Role: protocol.RoleToolsList},
			"prompts/get":            {Name: "prompts/get", FromClient: true, Implemented: func(any) bool { return false }, ValidateParams: protocol.NoParams},
			"sampling/createMessage": {Name: "sampling/createMessage", FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleSampling},
			"elicitation/create":     {Name: "elicitation/create", FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleElicitation},
			"roots/list":             {Name: "roots/list", FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleRoots},
		}
		for n, r := range map[string]protocol.Role{"notifications/progress": protocol.RoleProgress, "notifications/message": protocol.RoleLog, "notifications/tools/list_changed": protocol.RoleToolsListChanged,
			"notifications/prompts/list_changed": protocol.RolePromptsListChanged, "notifications/cancelled": protocol.RoleCancelled} {
			ms[n] = &protocol.Method{Name: n, Notification: true, FromServer: true, FromClient: r == protocol.RoleProgress || r == protocol.RoleCancelled, ValidateParams: protocol.NoParams, Role: r}
			if r == protocol.RoleProgress || r == protocol.RoleCancelled {
				ms[n].Feature = protocol.FeatureLifecycle
			}
		}
		if stateless {
			ms["server/discover"] = &protocol.Method{Name: "server/discover", FromClient: true, ValidateParams: protocol.NoParams, Role: protocol.RoleDiscover, Feature: protocol.FeatureDiscover}
			ms["subscriptions/listen"] = &protocol.Method{Name: "subscriptions/listen", FromClient: true, ValidateParams: protocol.NoParams, Role: protocol.RoleListen, Feature: protocol.FeatureListen}
			ms["notifications/subscriptions/acknowledged"] = &protocol.Method{Name: "notifications/subscriptions/acknowledged", Notification: true, FromServer: true, ValidateParams: protocol.NoParams, Role: protocol.RoleListenAcknowledged}
		} else {
			for n, r := range map[string]protocol.Role{"initialize": protocol.RoleInitialize, "ping": protocol.RolePing, "logging/setLevel": protocol.RoleSetLevel, "notifications/initialized": protocol.RoleInitialized} {
				f := protocol.FeatureLifecycle
				if r == protocol.RoleSetLevel {
					f = protocol.FeatureLogging
				}
				ms[n] = &protocol.Method{Name: n, FromClient: true, ValidateParams: protocol.NoParams, Notification: strings.HasPrefix(n, "notifications/"), Role: r, Feature: f}
			}
		}
		return ms
	}
	caps := []string{"tools", "prompts", "logging", "resources", "completions"}
	return &protocol.Protocol{Revision: "2025-11-25", Era: protocol.Stateful, Methods: methods(false), ServerCapabilities: caps, NoID: jsonrpc.OmitID, ToolError: testToolError(false)},
		&protocol.Protocol{Revision: "2026-07-28", Era: protocol.Stateless, Methods: methods(true), ServerCapabilities: append(caps, "extensions"),
			NoID: jsonrpc.OmitID, MissingCapabilityCode: CodeMissingRequiredClientCapability, ToolError: testToolError(true)}
}

// testToolError is a revision's CallToolResult of a tool execution error.
func testToolError(resultType bool) func(string) wire.Marshaler {
	return func(text string) wire.Marshaler {
		var e wire.Encoder
		e.Str(text)
		prefix := `{"content":[{"type":"text","text":`
		if resultType {
			prefix = `{"resultType":"complete","content":[{"type":"text","text":`
		}
		return wire.Raw(prefix + string(e.Bytes()) + `}],"isError":true}`)
	}
}

// statelessRequest is a stateless Request of method in revision p, as s
// serves it: declaring version, naming name (params.name), with ctx.
func statelessRequest(s *Server, p *protocol.Protocol, method, version, name string, ctx context.Context) *Request {
	r := &Request{server: s, Method: method, Protocol: p, route: &route{method: p.Methods[method]}, ctx: ctx}
	r.in.meta.protocolVersion = version
	r.in.named[0], r.in.has = name, 1
	// The params a retry repeats: a requestState binds them.
	r.in.req = &jsonrpc.Request{Method: method, Params: wire.Raw(`{"name":` + strconv.Quote(name) + `}`)}
	r.client = statelessClient{r}
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

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.notes...)
}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}`

func req(method, params string) *jsonrpc.Request {
	r := &jsonrpc.Request{ID: wire.IntValue(1), Method: method}
	if params != "" {
		r.Params = wire.Raw(params)
	}
	return r
}

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

func TestLegacyLifecycle(t *testing.T) {
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

func TestListenStream(t *testing.T) {
	s := newTestServer(t, ServerOptions{ListChanged: true})
	out := &recorder{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan string, 1)
	go func() {
		res, err := s.handleStateless(ctx, req("subscriptions/listen", `{`+meta+`},"notifications":{"toolsListChanged":true,"promptsListChanged":true}}`), out)
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		done <- encode(t, res)
	}()
	waitFor(t, func() bool { return len(out.all()) == 1 })
	s.NotifyListChanged(context.Background(), PromptsList) // not honoured: prompts/list is not implemented
	s.NotifyListChanged(context.Background(), ToolsList)
	waitFor(t, func() bool { return len(out.all()) == 2 })
	s.EndStreams()
	got := <-done
	notes := out.all()
	if !strings.HasPrefix(notes[0], `notifications/subscriptions/acknowledged {"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}`) {
		t.Errorf("ack: %s", notes[0])
	}
	if notes[1] != `notifications/tools/list_changed {"_meta":{"io.modelcontextprotocol/subscriptionId":1}}` {
		t.Errorf("notification: %s", notes[1])
	}
	if got != `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":1}}` {
		t.Errorf("graceful end: %s", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("condition not met")
}

// The flat checker must agree with jsonschema on the schemas it accepts.
func TestFlatSchemaAgreesWithJSONSchema(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"text":{"type":"string","description":"d"}},"required":["text"]}`,
		`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"number"},"b":{"type":"boolean"}},"additionalProperties":false}`,
		`{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"]},"o":{"type":"object"},"l":{"type":"array"}},"required":["mode","o"]}`,
		`{"type":"object","properties":{}}`,
	}
	args := []string{`{}`, `{"text":"hi"}`, `{"text":5}`, `{"n":1}`, `{"n":1.5}`, `{"n":1.0}`, `{"n":1e3}`, `{"n":"1"}`, `{"x":-2.5e-3}`,
		`{"b":true}`, `{"b":null}`, `{"extra":1}`, `{"mode":"a","o":{}}`, `{"mode":"c","o":{}}`, `{"mode":"a","o":[]}`, `{"mode":"a","o":{},"l":[1]}`,
		`[]`, `"str"`, `{"text":"x","n":2,"x":1,"b":false,"mode":"b","o":{"deep":[1,{"a":null}]},"l":[]}`}
	for _, sc := range schemas {
		fs := compileFlat([]byte(sc))
		if fs == nil {
			t.Fatalf("schema not recognized as flat: %s", sc)
		}
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource("s.json", strings.NewReader(sc)); err != nil {
			t.Fatal(err)
		}
		ref := c.MustCompile("s.json")
		for _, a := range args {
			v, err := decodeAny([]byte(a))
			if err != nil {
				t.Fatal(err)
			}
			want := ref.Validate(v) == nil
			got := fs.check([]byte(a)) == ""
			if got != want {
				t.Errorf("schema %s, args %s: flat %v (%s), jsonschema %v", sc, a, got, fs.check([]byte(a)), want)
			}
		}
	}
	for _, sc := range []string{`{"type":"object","properties":{"s":{"type":"string","minLength":1}}}`, `{"type":"object","oneOf":[]}`, `{"properties":{}}`, `{"type":"object","properties":{"u":{"type":["string","null"]}}}`} {
		if compileFlat([]byte(sc)) != nil {
			t.Errorf("schema with other keywords taken as flat: %s", sc)
		}
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
