package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/valid"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// irr stands for a revision's InputRequiredResult: raw JSON that
// inputRequiredOf recognizes.
type irr struct{ wire.Raw }

func (r irr) EncodeJSON(e *wire.Encoder) { e.Raw(r.Raw) }

// inputRequiredOf is the test revision's Protocol.InputRequired.
func inputRequiredOf(res wire.Marshaler) (map[string]wire.Raw, bool) {
	r, ok := res.(irr)
	if !ok {
		return nil, false
	}
	out := map[string]wire.Raw{}
	v, _ := wire.MemberOf(r.Raw, "inputRequests")
	d := wire.NewDecoder(v)
	_ = d.Object(func(k []byte) error {
		v, err := d.Raw()
		out[string(k)] = v
		return err
	})
	return out, true
}

// checked is a result with a Validate, as generated results have.
type checked struct {
	wire.Raw
	err error
}

func (c checked) EncodeJSON(e *wire.Encoder) { e.Raw(c.Raw) }
func (c checked) Validate() error            { return c.err }

// toolServer serves a stateless tools/call whose tool, by name, does what
// the tests need: start a task, ask for input, return an invalid result,
// redeem a single-use state.
func toolServer(t testing.TB, opts ServerOptions) *Server {
	t.Helper()
	_, p := testProtocols()
	p.InputRequired = inputRequiredOf
	p.Methods["tools/call"] = &protocol.Method{Name: "tools/call", FromClient: true, Implemented: always, ValidateParams: protocol.NoParams, NameParam: "name", Role: protocol.RoleToolsCall,
		Serve: func(ctx context.Context, _ any, params wire.Raw) (wire.Marshaler, error) {
			r := RequestFrom(ctx)
			name := RequestFrom(ctx).in.toolName()
			state := stringMemberOf(params, "requestState")
			switch name {
			case "ask-sampling":
				return irr{wire.Raw(`{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}}}`)}, nil
			case "ask-url":
				return irr{wire.Raw(`{"resultType":"input_required","inputRequests":{"u":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x","elicitationId":"1"}}}}`)}, nil
			case "invalid":
				return checked{wire.Raw(`{"content":[{"type":"resource_link","uri":"","name":"x"}]}`), &valid.Error{Violations: []valid.Violation{{Pointer: "/content/0/uri", Rule: "format", Message: "must be a URI"}}}}, nil
			case "round":
				// The first call seals a state; the retry opens it.
				if state == "" {
					return wire.Raw(`{"state":"` + r.SealState([]byte("secret-data-123")) + `"}`), nil
				}
				data, err := r.OpenState(state)
				if err != nil {
					return nil, err
				}
				return wire.Raw(`{"content":[],"data":"` + string(data) + `"}`), nil
			case "seal":
				return wire.Raw(`{"state":"` + r.SealState([]byte("s")) + `","once":"` + r.SealStateOnce([]byte("o")) + `"}`), nil
			case "redeem", "redeem-again":
				if _, err := r.OpenState(state); err != nil {
					return nil, err
				}
				if name == "redeem-again" {
					// Another round: the state stays usable.
					return irr{wire.Raw(`{"resultType":"input_required","requestState":"x"}`)}, nil
				}
				return wire.Raw(`{"content":[]}`), nil
			}
			return wire.Raw(`{"content":[]}`), nil
		},
		// As generated code validates: the results of its own types.
		ValidateResult: func(res wire.Marshaler) error {
			if c, ok := res.(checked); ok {
				return c.Validate()
			}
			return nil
		}}
	if opts.Name == "" {
		opts.Name, opts.Version = "test", "1"
	}
	s, err := NewServer(opts, Mount{Protocol: p, Handler: echoHandler{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func as(principal string) context.Context {
	return WithPrincipal(context.Background(), principal)
}

func callTool(s *Server, ctx context.Context, name, extra, caps string) (string, error) {
	if caps == "" {
		caps = "{}"
	}
	params := `{"name":"` + name + `"` + extra + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}`
	res, err := s.handleStateless(ctx, req("tools/call", params), &recorder{})
	if err != nil {
		return "", err
	}
	b, err := wire.Marshal(res)
	return string(b), err
}

func code(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

func decodeString(t *testing.T, js, member string) string {
	t.Helper()
	d := wire.NewDecoder([]byte(js))
	k, v, err := d.PeekMember(member)
	if err != nil || k != wire.String {
		t.Fatalf("no %s in %s", member, js)
	}
	return string(v)
}

// TestRequestStateBinding: a requestState is bound to the principal it
// was issued to, and one sealed with SealStateOnce completes its request
// once: it stays usable through further rounds (InputRequiredResult) and
// failures, and is refused while another request holds it.
func TestRequestStateBinding(t *testing.T) {
	s := toolServer(t, ServerOptions{})
	out, err := callTool(s, as("alice"), "seal", "", "")
	if err != nil {
		t.Fatal(err)
	}
	state, once := decodeString(t, out, "state"), decodeString(t, out, "once")
	// The states were sealed for the tool "seal"; the tests redeem them
	// with requests that the tool named in the binding matches.
	retry := func(principal, tool, st string) error {
		_, err := callTool(s, as(principal), tool, `,"requestState":"`+st+`"`, "")
		return err
	}
	sealFor := func(tool string) (string, string) {
		r := statelessRequest(s, s.stateless[0].Protocol, "tools/call", "2026-07-28", tool, as("alice"))
		return r.SealState([]byte("s")), r.SealStateOnce([]byte("o"))
	}
	if retry("alice", "redeem", state) == nil {
		t.Error("a state sealed for another tool was accepted")
	}
	state, once = sealFor("redeem")
	tests := []struct {
		name      string
		principal string
		st        string
		tool      string
		code      int64
	}{
		{"another principal", "bob", state, "redeem", jsonrpc.CodeInvalidParams},
		{"no principal", "", state, "redeem", jsonrpc.CodeInvalidParams},
		{"the principal", "alice", state, "redeem", 0},
		{"the principal again: plain states are not single-use", "alice", state, "redeem", 0},
		{"a single-use state, another principal", "bob", once, "redeem", jsonrpc.CodeInvalidParams},
		{"a single-use state", "alice", once, "redeem", 0},
		{"the single-use state replayed", "alice", once, "redeem", jsonrpc.CodeInvalidParams},
	}
	for _, tt := range tests {
		err := retry(tt.principal, tt.tool, tt.st)
		if code(err) != tt.code {
			t.Errorf("%s: %v, want code %d", tt.name, err, tt.code)
		}
		if tt.name == "the single-use state replayed" && !errors.Is(err, ErrStateUsed) {
			t.Errorf("%s: %v, want ErrStateUsed", tt.name, err)
		}
	}
	// A round that asks for more input does not spend it.
	_, once2 := sealFor("redeem-again")
	for range 2 {
		if err := retry("alice", "redeem-again", once2); err != nil {
			t.Errorf("a single-use state through another round: %v", err)
		}
	}
	// While one request holds it, another is refused.
	_, once3 := sealFor("redeem")
	holder := statelessRequest(s, s.stateless[0].Protocol, "tools/call", "2026-07-28", "redeem", as("alice"))
	if _, err := holder.OpenState(once3); err != nil {
		t.Fatal(err)
	}
	if err := retry("alice", "redeem", once3); !errors.Is(err, ErrStateUsed) {
		t.Errorf("a state held by a request in progress: %v", err)
	}
	s.states.Settle(holder, false)
	if err := retry("alice", "redeem", once3); err != nil {
		t.Errorf("once released: %v", err)
	}
}

// TestRequestStateBoundToParams: a requestState is bound to the params of
// its request but requestState, inputResponses and _meta — a retry that
// changes the arguments (or adds a member) is refused, one that encodes
// the same arguments differently is not — and its content is encrypted:
// the client cannot read it.
func TestRequestStateBoundToParams(t *testing.T) {
	s := toolServer(t, ServerOptions{})
	out, err := callTool(s, as("alice"), "round", `,"arguments":{"a":1,"b":["x\u0041",2]}`, "")
	if err != nil {
		t.Fatal(err)
	}
	state := decodeString(t, out, "state")
	if raw, err := base64.RawURLEncoding.DecodeString(state); err != nil || strings.Contains(string(raw), "secret-data") {
		t.Errorf("the state's content is readable by the client: %q", raw)
	}
	retry := `,"requestState":"` + state + `","inputResponses":{"k":{"action":"accept"}}`
	for _, tc := range []struct {
		name, params string
		code         int64
	}{
		{"the same arguments, reordered and re-encoded", `,"arguments":{ "b":["xA", 2.0e0], "a":1 }` + retry, jsonrpc.CodeInvalidParams},
		{"the same arguments, reordered", `,"arguments":{"b":["xA",2],"a":1}` + retry, 0},
		{"other arguments", `,"arguments":{"a":2,"b":["xA",2]}` + retry, jsonrpc.CodeInvalidParams},
		{"no arguments", retry, jsonrpc.CodeInvalidParams},
		{"another member", `,"arguments":{"a":1,"b":["xA",2]},"task":{}` + retry, jsonrpc.CodeInvalidParams},
	} {
		out, err := callTool(s, as("alice"), "round", tc.params, "")
		if code(err) != tc.code {
			t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
		}
		if err == nil && !strings.Contains(out, `"data":"secret-data-123"`) {
			t.Errorf("%s: %s", tc.name, out)
		}
	}
}

// TestSingleUseStateRace: of many concurrent retries carrying one
// single-use state, one completes.
func TestSingleUseStateRace(t *testing.T) {
	s := toolServer(t, ServerOptions{})
	r := statelessRequest(s, s.stateless[0].Protocol, "tools/call", "2026-07-28", "redeem", as("alice"))
	once := r.SealStateOnce([]byte("o"))
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for range 32 {
		wg.Go(func() {
			if _, err := callTool(s, as("alice"), "redeem", `,"requestState":"`+once+`"`, ""); err == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if ok != 1 {
		t.Errorf("%d retries completed, want 1", ok)
	}
}

// TestValidateResults: with ValidateResults, a result that breaks the
// schema is answered -32603 instead of being sent.
func TestValidateResults(t *testing.T) {
	for _, tc := range []struct {
		v    ResultValidation
		fail bool
	}{{ValidateResultsOn, true}, {ValidateResultsOff, false}, {ValidateResultsAuto, true}} {
		s := toolServer(t, ServerOptions{ValidateResults: tc.v})
		_, err := callTool(s, as(""), "invalid", "", "")
		if (err != nil) != tc.fail {
			t.Errorf("ValidateResults %d: %v", tc.v, err)
		}
		if err != nil && (code(err) != 0 || !strings.Contains(err.Error(), "/content/0/uri")) {
			t.Errorf("ValidateResults %d: %v, want an internal error naming the field", tc.v, err)
		}
	}
}

// TestInputRequestsNeedCapabilities: a server asks for input only when the
// client declared it can give it: InputRequiredResult (2026) and requests
// to a stateful client (task input: runtime/tasks).
func TestInputRequestsNeedCapabilities(t *testing.T) {
	s := toolServer(t, ServerOptions{})
	for _, tc := range []struct {
		tool, caps string
		code       int64
	}{
		{"ask-sampling", `{}`, CodeMissingRequiredClientCapability},
		{"ask-sampling", `{"sampling":{}}`, 0},
		{"ask-url", `{"elicitation":{}}`, CodeMissingRequiredClientCapability},
		{"ask-url", `{"elicitation":{"url":{}}}`, 0},
	} {
		_, err := callTool(s, as(""), tc.tool, "", tc.caps)
		if code(err) != tc.code {
			t.Errorf("%s with %s: %v, want code %d", tc.tool, tc.caps, err, tc.code)
		}
	}

	// A stateful client.
	for _, tc := range []struct {
		caps, method, params string
		sent                 bool
	}{
		{`{}`, "sampling/createMessage", `{"messages":[],"maxTokens":1}`, false},
		{`{"sampling":{}}`, "sampling/createMessage", `{"messages":[],"maxTokens":1}`, true},
		{`{"sampling":{}}`, "sampling/createMessage", `{"messages":[],"maxTokens":1,"tools":[]}`, false},
		{`{"elicitation":{}}`, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`, true},
		{`{"elicitation":{"url":{}}}`, "elicitation/create", `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`, false},
		{`{}`, "roots/list", `{}`, false},
		{`{"roots":{}}`, "roots/list", `{}`, true},
		{`{}`, "ping", `{}`, true},
	} {
		peer := &countingPeer{}
		sess := newTestServer(t, ServerOptions{}).NewSession(peer, nil)
		if _, err := sess.handle(context.Background(), req("initialize", `{"protocolVersion":"2025-11-25","capabilities":`+tc.caps+`,"clientInfo":{"name":"c","version":"1"}}`), &recorder{}); err != nil {
			t.Fatal(err)
		}
		err := sess.Peer().Call(context.Background(), tc.method, wire.Raw(tc.params), nil)
		if sent := peer.calls > 0; sent != tc.sent {
			t.Errorf("%s with %s: sent %v (%v), want %v", tc.method, tc.caps, sent, err, tc.sent)
		}
		if !tc.sent && code(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s with %s: %v, want the stateful era's -32602", tc.method, tc.caps, err)
		}
	}
}

type countingPeer struct {
	recorder
	calls int
}

func (p *countingPeer) Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return p.CallInto(ctx, method, params, wire.To(result))
}

func (p *countingPeer) CallInto(context.Context, string, wire.Marshaler, wire.Into) error {
	p.calls++
	return nil
}

// Handlers with the wrong method signatures.
type wrongResult struct{}

func (wrongResult) Do(context.Context, *struct{}) (*string, error) { return nil, nil }

type pointerOnly struct{}

func (*pointerOnly) Do(context.Context, *struct{}) (wire.Marshaler, error) { return nil, nil }

type rightOne struct{}

func (rightOne) Do(context.Context, *struct{}) (wire.Marshaler, error) { return nil, nil }

// TestHandlerSignatures: NewServer refuses a handler whose method has the
// name of one the revision serves but another signature, naming it; code
// generated before version 10, which gives no HandlerMethod, has only the
// pointer receiver checked.
func TestHandlerSignatures(t *testing.T) {
	_, p := testProtocols()
	_, old := testProtocols()
	for _, p := range []*protocol.Protocol{p, old} {
		p.Methods["tools/call"].HandlerType = reflect.TypeFor[interface {
			Do(context.Context, *struct{}) (wire.Marshaler, error)
		}]()
	}
	p.Methods["tools/call"].HandlerMethod = func(t reflect.Type) (reflect.Method, bool) { return t.MethodByName("Do") }
	for _, tc := range []struct {
		p       *protocol.Protocol
		handler any
		want    string
	}{
		{p, rightOne{}, ""},
		{p, &pointerOnly{}, ""},
		{p, echoHandler{}, ""}, // no method of that name: simply not served
		{p, wrongResult{}, "method Do of mcp.wrongResult cannot serve tools/call: it is func(context.Context, *struct {}) (*string, error), want func(context.Context, *struct {}) (wire.Marshaler, error)"},
		{p, pointerOnly{}, "method Do of *mcp.pointerOnly has a pointer receiver, so the mcp.pointerOnly value mounted does not serve tools/call: mount a pointer"},
		{old, rightOne{}, ""},
		{old, wrongResult{}, ""},
		{old, pointerOnly{}, "the method of interface { Do(context.Context, *struct {}) (wire.Marshaler, error) } of *mcp.pointerOnly has a pointer receiver"},
	} {
		_, err := NewServer(ServerOptions{Name: "t", Version: "1"}, Mount{Protocol: tc.p, Handler: tc.handler})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%T: %v", tc.handler, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%T: %v, want %q", tc.handler, err, tc.want)
		}
	}
}

// TestSessionBoundToPrincipal: the core refuses a stateful session's
// requests from another principal whatever the transport.
func TestSessionBoundToPrincipal(t *testing.T) {
	s := newTestServer(t, ServerOptions{})
	sess := s.NewSession(&recorder{}, nil)
	if _, err := sess.handle(as("alice"), req("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`), &recorder{}); err != nil {
		t.Fatal(err)
	}
	if _, err := sess.handle(as("bob"), req("tools/list", ""), &recorder{}); code(err) != jsonrpc.CodeInvalidRequest {
		t.Errorf("bob in alice's session: %v", err)
	}
	if _, err := sess.handle(as("alice"), req("tools/list", ""), &recorder{}); err != nil {
		t.Errorf("alice: %v", err)
	}
	if got := sess.Principal(); got != "alice" {
		t.Errorf("Principal() = %q", got)
	}
}

// TestResultValidationDefault: results are validated unless a server
// turns it off, in every binary (it was on only in tests and debug builds,
// so the binaries `make build` makes sent invalid results unchecked).
func TestResultValidationDefault(t *testing.T) {
	for v, want := range map[ResultValidation]bool{ValidateResultsAuto: true, ValidateResultsOn: true, ValidateResultsOff: false} {
		if v.enabled() != want {
			t.Errorf("%d.enabled() = %v, want %v", v, !want, want)
		}
	}
}

// BenchmarkRequestState: sealing a requestState and opening it on the
// retry (the binding's params digest included).
func BenchmarkRequestState(b *testing.B) {
	s := toolServer(b, ServerOptions{})
	r := statelessRequest(s, s.stateless[0].Protocol, "tools/call", "2026-07-28", "redeem", as("alice"))
	data := []byte(`{"step":2,"answers":["a","b"]}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.OpenState(r.SealState(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOldGeneratedCodeWarned: a revision whose package was generated
// before version 14 (result types without DecodeResult) is served, and
// the server says that its results are not validated.
func TestOldGeneratedCodeWarned(t *testing.T) {
	for _, old := range []bool{true, false} {
		_, p := testProtocols()
		md := *p.Methods["tools/list"]
		md.NewResult = func() protocol.Result { return new(wire.Raw) }
		if !old {
			md.DecodeResult = func(data []byte) (protocol.Result, error) {
				r := new(wire.Raw)
				return r, wire.UnmarshalWith(data, r.DecodeJSON)
			}
		}
		p.Methods["tools/list"] = &md
		var log strings.Builder
		_, err := NewServer(ServerOptions{Name: "t", Version: "1", Logger: slog.New(slog.NewTextHandler(&log, nil))}, Mount{Protocol: p, Handler: echoHandler{}})
		if err != nil {
			t.Fatal(err)
		}
		if warned := strings.Contains(log.String(), "before generated-code version 14"); warned != old {
			t.Errorf("generated before 14: %v; warned: %v (%s)", old, warned, log.String())
		}
	}
}

// answeringPeer answers every request with one result, decoded as the
// caller asked (wire.Into).
type answeringPeer struct{ result string }

func (p answeringPeer) Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return p.CallInto(ctx, method, params, wire.To(result))
}

func (p answeringPeer) CallInto(_ context.Context, _ string, _ wire.Marshaler, result wire.Into) error {
	if result.Decode == nil {
		return nil
	}
	return wire.UnmarshalWith([]byte(p.result), result.Decode)
}

func (answeringPeer) Notify(context.Context, string, wire.Marshaler) error { return nil }

// TestOutgoingResultSeen: outgoing middleware sees the result of a
// request to the client as it was decoded for the caller, whether the
// caller passed a wire.Into (CallInto, as generated code does) or an
// Unmarshaler (Call).
func TestOutgoingResultSeen(t *testing.T) {
	const roots = `{"roots":[{"uri":"file:///x"}]}`
	var seen []string
	record := func(next MessageHandler) MessageHandler {
		return func(ctx context.Context, m *Message) (wire.Marshaler, error) {
			res, err := next(ctx, m)
			if m.Outgoing() && !m.IsNotification() {
				b, _ := wire.Marshal(res)
				seen = append(seen, string(b))
			}
			return res, err
		}
	}
	sess := newTestServer(t, ServerOptions{Middleware: []Middleware{record}}).NewSession(answeringPeer{roots}, nil)
	if _, err := sess.handle(context.Background(), req("initialize", `{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}`), &recorder{}); err != nil {
		t.Fatal(err)
	}
	var into, via wire.Raw
	if err := sess.Peer().CallInto(context.Background(), "roots/list", nil, into.Into()); err != nil || string(into) != roots {
		t.Fatalf("CallInto: %v, %s", err, into)
	}
	if err := sess.Peer().Call(context.Background(), "roots/list", nil, &via); err != nil || string(via) != roots {
		t.Fatalf("Call: %v, %s", err, via)
	}
	if len(seen) != 2 || seen[0] != roots || seen[1] != roots {
		t.Errorf("the middleware saw %q, want the result twice", seen)
	}
}
