package protocol

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A Bridge serves one revision (the client's) with handlers written for
// another (the handlers'): the code mcpgen convert generates converts each
// request from the client's revision to the handlers', calls them, and
// converts the result back. NewBridge makes it a revision to mount.
type Bridge struct {
	// Client is the revision the bridge serves; Handlers the revision the
	// handler is written for.
	Client, Handlers *Protocol
	// Methods are the methods the generated code converts: a method not
	// listed here is served only by an override.
	Methods []string
	// Adapt wraps the handler in a value implementing the client
	// revision's methods by conversion.
	Adapt func(handler any) any

	// The client side (mounted on a client, the same Mount): a client
	// handler written for Handlers answers the server-to-client requests
	// and notifications of Client's revision (sampling, elicitation,
	// roots, list changes), and typed calls written for Handlers reach a
	// server of Client's revision. Nil in bridges generated before
	// generated-code version 6.

	// ServerMethods are the server-to-client methods the generated code
	// converts; AdaptClient wraps the handler in a value implementing
	// them for Client's revision.
	ServerMethods []string
	AdaptClient   func(handler any) any
	// Calls carry the typed calls of Handlers' Client to Client's
	// revision, by method (see Converted). A call missing here cannot be
	// carried: it fails before it is sent (*NotCarriedError).
	Calls map[string]CallFunc
	// Values decode a value of Client's revision and convert it to
	// Handlers' type, by definition name (ServerCapabilities,
	// Implementation: what the server told of itself, see ServerValue).
	Values map[string]func(wire.Raw) (any, error)
}

// CallFunc makes one typed call of client code written for one revision
// over a session that speaks another: it converts params (of the client
// code's params type, possibly a nil pointer) to the session's revision,
// makes the call with that revision's typed client, and returns its
// result converted back (of the client code's result type).
type CallFunc func(ctx context.Context, c Caller, params any) (any, error)

// Converter is set on the revision a bridge mounts (NewBridge): how client
// code written for Handlers speaks to a server of that revision.
type Converter struct {
	// Handlers is the revision the client code is written for.
	Handlers *Protocol
	// Calls and Values are the Bridge's.
	Calls  map[string]CallFunc
	Values map[string]func(wire.Raw) (any, error)
}

// Converted returns how a typed call of client code written for p reaches
// the server over c: nil when c speaks p itself (or is no client
// session), the bridge's conversion when c speaks another revision
// through a bridge mounted for p, and a CallFunc failing with a
// *NotCarriedError when that revision has no such call. Generated Client
// methods ask it first (generated-code version 6).
func Converted(c Caller, p *Protocol, method string) CallFunc {
	cv, revision := converterOf(c, p)
	if cv == nil {
		return nil
	}
	if f := cv.Calls[method]; f != nil {
		return f
	}
	return func(context.Context, Caller, any) (any, error) {
		return nil, &NotCarriedError{Method: method, Revision: revision}
	}
}

// Speaker is implemented by client sessions: the revision they speak
// (mcp.ClientSession), and what the server told of itself.
type Speaker interface {
	// Protocol is the mounted revision the session speaks, nil before it
	// opens.
	Protocol() *Protocol
	// ServerCapabilities and ServerInfo are the JSON of the server's
	// capabilities and Implementation, nil when it sent none.
	ServerCapabilities() wire.Raw
	ServerInfo() wire.Raw
}

// converterOf is the Converter that carries client code written for p
// over c, and the revision it carries it to; nil when c speaks p itself
// or is no client session.
func converterOf(c Caller, p *Protocol) (*Converter, string) {
	s, ok := c.(Speaker)
	if !ok {
		return nil, ""
	}
	sp := s.Protocol()
	if sp == nil || sp == p || sp.Revision == p.Revision || sp.Converter == nil || sp.Converter.Handlers.Revision != p.Revision {
		return nil, ""
	}
	return sp.Converter, sp.Revision
}

// ServerValue decodes what the server told of itself when the session
// opened, in the types of p: def is "ServerCapabilities" (its
// capabilities) or "Implementation" (its serverInfo), decode decodes the
// JSON as p's type. When c speaks another revision through a bridge, the
// value is decoded as that revision's and converted. It returns nil, nil
// when the server sent none.
func ServerValue(c Caller, p *Protocol, def string, decode func(wire.Raw) (any, error)) (any, error) {
	s, ok := c.(Speaker)
	if !ok {
		return nil, fmt.Errorf("mcp: %T is not a client session: it has no server to describe", c)
	}
	var raw wire.Raw
	switch def {
	case "ServerCapabilities":
		raw = s.ServerCapabilities()
	case "Implementation":
		raw = s.ServerInfo()
	default:
		return nil, fmt.Errorf("mcp: the server tells no %s", def)
	}
	if raw == nil {
		return nil, nil
	}
	if cv, revision := converterOf(c, p); cv != nil {
		f := cv.Values[def]
		if f == nil {
			return nil, fmt.Errorf("mcp: the server's %s (revision %s) does not convert to revision %s", def, revision, p.Revision)
		}
		return f(raw)
	}
	return decode(raw)
}

// NotCarriedError is the error of a typed call that cannot reach the
// server in the revision the session speaks: client code written for a
// newer revision calls a method that revision lacks, or sets a member of
// its params that revision has no place for. Nothing is sent.
type NotCarriedError struct {
	// Method is the call; Member the params member ("" for the method);
	// Revision the revision the session speaks.
	Method, Member, Revision string
}

func (e *NotCarriedError) Error() string {
	if e.Member != "" {
		return fmt.Sprintf("mcp: %s: params member %q cannot be carried to revision %s, which the server speaks: it has no such member", e.Method, e.Member, e.Revision)
	}
	return fmt.Sprintf("mcp: %s cannot be carried to revision %s, which the server speaks: it has no such method", e.Method, e.Revision)
}

// NotCarried is the error of a call whose params set member, which
// revision has no place for (generated bridges call it).
func NotCarried(method, member, revision string) error {
	return &NotCarriedError{Method: method, Member: member, Revision: revision}
}

// bridged is the handler of a bridged revision.
type bridged struct {
	b             Bridge
	handler       any // written for b.Handlers
	adapter       any // b.Adapt(handler)
	clientAdapter any // b.AdaptClient(handler), nil without
	overrides     []any
}

// NewBridge returns the revision of b.Client and the handler to mount it
// with (mcp.Mount{Protocol: p, Handler: h}), serving it with handler,
// written for b.Handlers. An override is a value implementing methods of b.Client's
// revision itself: each method one of them implements (the first, in
// order) is served by it natively, not through the conversion.
//
// What the client revision lacks stays out: a method is served only when
// the handler (or an override) implements it and the client revision has
// it, so capabilities follow the client's revision.
//
// The server checks the handler against the handlers' revision and each
// override against the client's (the handler's CheckHandlers), as it
// checks a handler mounted directly.
func NewBridge(b Bridge, handler any, overrides ...any) (p *Protocol, h any) {
	if b.Client == nil || b.Handlers == nil || b.Adapt == nil {
		panic("mcp: a Bridge needs both protocols and Adapt")
	}
	if handler == nil {
		return b.Client, nil
	}
	bh := &bridged{b: b, handler: handler, adapter: b.Adapt(handler), overrides: overrides}
	if b.AdaptClient != nil {
		bh.clientAdapter = b.AdaptClient(handler)
	}
	p = b.Client.copyWith(make(map[string]*Method, len(b.Client.Methods)))
	if b.Calls != nil || b.Values != nil {
		p.Converter = &Converter{Handlers: b.Handlers, Calls: b.Calls, Values: b.Values}
	}
	for name, md := range b.Client.Methods {
		p.Methods[name] = bh.method(name, md, b.Handlers)
	}
	// The entries either end keeps apart are bridged when that end asks
	// for them (ForClient, ForServer), so that the other does not link
	// them. Either revision may hold them apart: the client's (its Serve)
	// or the handlers' (whether the handler implements them), one
	// generated before version 11 or for one end, the other not.
	if b.Client.ClientTable != nil || b.Handlers.ClientTable != nil {
		p.ClientTable = bridgedClient{bh}
	}
	if b.Client.ServerTable != nil || b.Handlers.ServerTable != nil {
		p.ServerTable = bridgedServer{bh}
	}
	return p, bh
}

// method is the bridged revision's entry for md, the client revision's
// entry of method name; handlers is the handlers' revision.
func (h *bridged) method(name string, md *Method, handlers *Protocol) *Method {
	bm := *md
	if md.Serve == nil || md.Feature != 0 {
		return &bm
	}
	var converted bool
	switch {
	case md.FromClient:
		converted = slices.Contains(h.b.Methods, name)
	case md.FromServer && h.clientAdapter != nil:
		converted = slices.Contains(h.b.ServerMethods, name)
	default:
		return &bm
	}
	bm.HandlerType = nil // the bridged handler is checked against each revision (CheckHandlers, CheckClientHandlers)
	bm.Implemented = bridgedImplemented(md, handlers.Methods[name], converted)
	bm.Serve = bridgedServe(md)
	return &bm
}

// bridgedClient is the ClientTable of a bridged revision: the entries
// the client's or the handlers' ClientTable completes, bridged.
type bridgedClient struct{ h *bridged }

// ClientMethods implements ClientTable.
func (c bridgedClient) ClientMethods() map[string]*Method {
	return c.h.entries(c.h.b.Client.ForClient(), c.h.b.Handlers.ForClient())
}

// bridgedServer is bridgedClient's counterpart for servers (ServerTable).
type bridgedServer struct{ h *bridged }

// ServerMethods implements ServerTable.
func (s bridgedServer) ServerMethods() map[string]*Method {
	return s.h.entries(s.h.b.Client.ForServer(), s.h.b.Handlers.ForServer())
}

// entries bridges the entries of client, a view of the client revision,
// that it or handlers, the same view of the handlers' revision, has
// other than the revisions themselves.
func (h *bridged) entries(client, handlers *Protocol) map[string]*Method {
	b := h.b
	out := make(map[string]*Method)
	for name, md := range client.Methods {
		if md != b.Client.Methods[name] || handlers.Methods[name] != b.Handlers.Methods[name] {
			out[name] = h.method(name, md, handlers)
		}
	}
	return out
}

// CheckHandlers is what a server checks of a bridged handler: its
// methods' signatures, against the revision each is written for.
func (h *bridged) CheckHandlers() error {
	return h.check(h.b.Handlers.ForServer(), h.b.Client.ForServer(), func(md *Method) bool { return md.FromClient })
}

// check checks the handler against handlers and the overrides against
// client, the revision each is written for, for the methods served picks.
func (h *bridged) check(handlers, client *Protocol, served func(*Method) bool) error {
	errs := []error{CheckHandler(handlers, h.handler, served)}
	for _, o := range h.overrides {
		errs = append(errs, CheckHandler(client, o, served))
	}
	return errors.Join(errs...)
}

// CheckClientHandlers is what a client checks of a bridged handler (its
// server-to-client methods), as CheckHandlers is for a server.
func (h *bridged) CheckClientHandlers() error {
	return h.check(h.b.Handlers.ForClient(), h.b.Client.ForClient(), func(md *Method) bool { return md.FromServer })
}

// answering is the value answering the client session's input requests
// (HandlerOf): the conversion of the handler to the bridged revision.
func (h *bridged) answering() any {
	if h.clientAdapter != nil {
		return h.clientAdapter
	}
	return h.handler
}

// override is the override serving md, or nil.
func (h *bridged) override(md *Method) any {
	for _, o := range h.overrides {
		if md.Implemented(o) {
			return o
		}
	}
	return nil
}

func bridgedImplemented(md, target *Method, converted bool) func(any) bool {
	return func(handler any) bool {
		h, ok := handler.(*bridged)
		if !ok {
			return false
		}
		if h.override(md) != nil {
			return true
		}
		return converted && target != nil && target.Implemented != nil && target.Implemented(h.handler)
	}
}

func bridgedServe(md *Method) func(context.Context, any, wire.Raw) (wire.Marshaler, error) {
	return func(ctx context.Context, handler any, params wire.Raw) (wire.Marshaler, error) {
		h, ok := handler.(*bridged)
		if !ok {
			return nil, jsonrpc.MethodNotFound(md.Name)
		}
		if o := h.override(md); o != nil {
			return md.Serve(ctx, o, params)
		}
		if !md.FromClient {
			return md.Serve(ctx, h.clientAdapter, params)
		}
		return md.Serve(ctx, h.adapter, params)
	}
}

// AskClient sends the input requests of result, a handler's
// InputRequiredResult of revision p (see Protocol.InputRequired), to the
// client of the stateful session ctx is served in (peer: mcp.ClientOf(ctx)),
// one after the other,
// and returns the object of their results by key: the inputResponses of
// the next round of the request (of method). round counts the rounds so
// far; past MaxInputRounds the request fails. It is how a bridge serves a
// handler of the stateless era that asks for input to a client of the
// stateful era, which is asked with requests of its own
// (sampling/createMessage, elicitation/create, roots/list).
func AskClient(ctx context.Context, peer Caller, p *Protocol, method string, round int, result wire.Marshaler) (wire.Raw, error) {
	if round >= MaxInputRounds {
		return nil, TooManyInputRounds(method)
	}
	var requests map[string]wire.Raw
	if p.InputRequired != nil {
		requests, _ = p.InputRequired(result)
	}
	if len(requests) == 0 {
		return nil, fmt.Errorf("mcp: %s: the handler asked for input but named no input request", method)
	}
	keys := make([]string, 0, len(requests))
	for k := range requests {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	for _, key := range keys {
		var name string
		if method, ok := wire.MemberOf(requests[key], "method"); ok && method.Kind() == wire.String {
			name, _ = wire.NewDecoder(method).Str()
		}
		if name == "" {
			return nil, fmt.Errorf("mcp: input request %q names no method", key)
		}
		params, _ := wire.MemberOf(requests[key], "params")
		var result wire.Raw
		var p wire.Marshaler
		if params != nil {
			p = params
		}
		if err := peer.CallInto(ctx, name, p, result.Into()); err != nil {
			return nil, fmt.Errorf("mcp: input request %q (%s): %w", key, name, err)
		}
		e.Field(key)
		e.Raw(result)
	}
	e.ObjectEnd()
	if err := e.Err(); err != nil {
		return nil, err
	}
	return slices.Clone(e.Bytes()), nil
}

// Unconvertible is the error a bridge answers when a handler's result has
// no counterpart in the client's revision (a task result for a revision
// without tasks, say).
func Unconvertible(method, revision string, result any) error {
	return jsonrpc.NewError(jsonrpc.CodeInternalError, "%s: the handler's %T result has no counterpart in revision %s", method, result, revision)
}
