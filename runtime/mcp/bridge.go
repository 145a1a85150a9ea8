package mcp

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
// converts the result back. NewBridge turns it into a Mount.
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

// bridged is the Handler of a bridged Mount.
type bridged struct {
	b         Bridge
	handler   any // written for b.Handlers
	adapter   any // b.Adapt(handler)
	overrides []any
}

// NewBridge mounts handler, written for b.Handlers, for the revision of
// b.Client. An override is a value implementing methods of b.Client's
// revision itself: each method one of them implements (the first, in
// order) is served by it natively, not through the conversion.
//
// What the client revision lacks stays out: a method is served only when
// the handler (or an override) implements it and the client revision has
// it, so capabilities follow the client's revision.
//
// NewServer checks the handler against the handlers' revision and each
// override against the client's, as it checks a handler mounted directly.
func NewBridge(b Bridge, handler any, overrides ...any) Mount {
	if b.Client == nil || b.Handlers == nil || b.Adapt == nil {
		panic("mcp: a Bridge needs both protocols and Adapt")
	}
	if handler == nil {
		return Mount{Protocol: b.Client}
	}
	h := &bridged{b: b, handler: handler, adapter: b.Adapt(handler), overrides: overrides}
	// Every exported field of the client's Protocol but Methods
	// (TestBridgeCopiesProtocol keeps this list whole).
	p := &Protocol{
		Revision:              b.Client.Revision,
		Stateless:             b.Client.Stateless,
		Batches:               b.Client.Batches,
		Methods:               make(map[string]*Method, len(b.Client.Methods)),
		Stamp:                 b.Client.Stamp,
		ServerCapabilities:    b.Client.ServerCapabilities,
		ClientCapabilities:    b.Client.ClientCapabilities,
		InputRequired:         b.Client.InputRequired,
		NoID:                  b.Client.NoID,
		MissingCapabilityCode: b.Client.MissingCapabilityCode,
		Tasks:                 b.Client.Tasks,
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
	return Mount{Protocol: p, Handler: h}
}

// check is what NewServer checks of a bridged handler: its methods'
// signatures, against the revision each is written for.
func (h *bridged) check() error {
	fromClient := func(md *Method) bool { return md.FromClient }
	errs := []error{checkHandler(h.b.Handlers, h.handler, fromClient)}
	for _, o := range h.overrides {
		errs = append(errs, checkHandler(h.b.Client, o, fromClient))
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
// client of the stateful session ctx is served in, one after the other,
// and returns the object of their results by key: the inputResponses of
// the next round of the request (of method). round counts the rounds so
// far; past MaxInputRounds the request fails. It is how a bridge serves a
// handler of the stateless era that asks for input to a client of the
// stateful era, which is asked with requests of its own
// (sampling/createMessage, elicitation/create, roots/list).
func AskClient(ctx context.Context, p *Protocol, method string, round int, result wire.Marshaler) (wire.Raw, error) {
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
	peer := ClientOf(ctx)
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	for _, key := range keys {
		method, ok := wire.MemberOf(requests[key], "method")
		var name string
		if ok {
			ok = wire.Unmarshal(method, (*wireString)(&name)) == nil
		}
		if !ok || name == "" {
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
