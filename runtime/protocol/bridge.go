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
}

// bridged is the handler of a bridged revision.
type bridged struct {
	b         Bridge
	handler   any // written for b.Handlers
	adapter   any // b.Adapt(handler)
	overrides []any
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
	// Every exported field of the client's Protocol but Methods
	// (TestBridgeCopiesProtocol keeps this list whole).
	p = &Protocol{
		Revision:              b.Client.Revision,
		Era:                   b.Client.Era,
		Batches:               b.Client.Batches,
		RetryOnClose:          b.Client.RetryOnClose,
		Methods:               make(map[string]*Method, len(b.Client.Methods)),
		Stamp:                 b.Client.Stamp,
		ServerCapabilities:    b.Client.ServerCapabilities,
		ClientCapabilities:    b.Client.ClientCapabilities,
		InputRequired:         b.Client.InputRequired,
		NoID:                  b.Client.NoID,
		MissingCapabilityCode: b.Client.MissingCapabilityCode,
		Tasks:                 b.Client.Tasks,
		ResourceNotFoundCode:  b.Client.ResourceNotFoundCode,
		ToolError:             b.Client.ToolError,
		Members:               b.Client.Members,
	}
	for name, md := range b.Client.Methods {
		bm := *md
		if md.Serve != nil && md.Feature == 0 && md.FromClient {
			bm.HandlerType = nil // NewServer checks the bridged handler against each revision (bridged.check)
			bm.Implemented = bridgedImplemented(md, b.Handlers.Methods[name], slices.Contains(b.Methods, name))
			bm.Serve = bridgedServe(md)
		}
		p.Methods[name] = &bm
	}
	return p, bh
}

// CheckHandlers is what a server checks of a bridged handler: its
// methods' signatures, against the revision each is written for.
func (h *bridged) CheckHandlers() error {
	fromClient := func(md *Method) bool { return md.FromClient }
	errs := []error{CheckHandler(h.b.Handlers, h.handler, fromClient)}
	for _, o := range h.overrides {
		errs = append(errs, CheckHandler(h.b.Client, o, fromClient))
	}
	return errors.Join(errs...)
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
		if err := peer.Call(ctx, name, p, &result); err != nil {
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
