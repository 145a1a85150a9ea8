package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"sort"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// This file checks what a server sends rather than what it receives: the
// handler mounted for a revision (its methods must have the generated
// signatures), the results handlers return (ServerOptions.ValidateResults)
// and the input a server asks its client for, which the specification
// allows only for capabilities the client declared.

// ResultValidation chooses whether a server validates the results its
// handlers return before sending them.
type ResultValidation int

const (
	// ValidateResultsAuto, the default, validates: a result that breaks
	// its revision's schema is a bug the client must not receive, and the
	// check costs little (a Validate per result: see the benchmark
	// ToolsCallRoundTrip/.../validated).
	ValidateResultsAuto ResultValidation = iota
	// ValidateResultsOn always validates.
	ValidateResultsOn
	// ValidateResultsOff never validates: for a server whose handlers are
	// known to return valid results and that wants the last nanoseconds.
	ValidateResultsOff
)

// enabled resolves Auto.
func (v ResultValidation) enabled() bool { return v != ValidateResultsOff }

// validateResult checks a result against the schema with the method's
// ValidateResult (the server validates results): a result that breaks it
// is a server bug, answered -32603 (with the violations in the log)
// rather than sent. Results the runtime builds, and raw JSON, pass.
func validateResult(method string, validate func(wire.Marshaler) error, res wire.Marshaler) error {
	if err := validate(res); err != nil {
		return fmt.Errorf("mcp: the %s result breaks the schema: %w", method, err)
	}
	return nil
}

// inputCapability is the client capability a request to the client (in
// role r) needs: sampling, sampling.tools for a sampling request offering
// tools, elicitation (form mode: elicitation.form or an empty elicitation,
// which means form), elicitation.url, roots. nil for requests that need
// none (ping).
func inputCapability(caps wire.Raw, r protocol.Role, params wire.Raw) []string {
	switch r {
	case protocol.RoleSampling:
		if hasMember(params, "tools") {
			return needs(caps, "sampling", "tools")
		}
		return needs(caps, "sampling")
	case protocol.RoleElicitation:
		if mode := stringMemberOf(params, "mode"); mode == "url" {
			return needs(caps, "elicitation", "url")
		}
		if missing := needs(caps, "elicitation"); missing != nil {
			return missing
		}
		if has(caps, "elicitation", "url") && !has(caps, "elicitation", "form") {
			return []string{"elicitation", "form"} // url mode only
		}
		return nil
	case protocol.RoleRoots:
		return needs(caps, "roots")
	}
	return nil
}

// needs returns path when caps lacks it.
func needs(caps wire.Raw, path ...string) []string {
	if has(caps, path...) {
		return nil
	}
	return path
}

// has reports whether the capabilities object caps declares path.
func has(caps wire.Raw, path ...string) bool {
	if len(caps) == 0 {
		return false
	}
	d := wire.NewDecoder(caps)
	k, _, err := d.PeekMember(path...)
	return err == nil && k != wire.Invalid && k != wire.Null
}

// stringMemberOf returns a string member of an object, or "".
func stringMemberOf(obj wire.Raw, name string) string {
	if len(obj) == 0 {
		return ""
	}
	d := wire.NewDecoder(obj)
	k, v, err := d.PeekMember(name)
	if err != nil || k != wire.String {
		return ""
	}
	return string(v)
}

// checkInputRequests reports whether res is an InputRequiredResult, and
// refuses one that asks for input the request's client did not declare it
// can give: the handler should have checked
// (Request.HasClientCapability); the client gets -32021 naming the
// capability.
func checkInputRequests(log *slog.Logger, r *Request, p *protocol.Protocol, res wire.Marshaler) (bool, error) {
	if p.InputRequired == nil {
		return false, nil
	}
	requests, ok := p.InputRequired(res)
	if !ok {
		return false, nil
	}
	caps := r.ClientCapabilities()
	keys := make([]string, 0, len(requests))
	for k := range requests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		method, params, err := SplitRequest(requests[k])
		if err != nil {
			continue // Validate's business
		}
		if missing := inputCapability(caps, roleIn(p, method), params); missing != nil {
			log.Warn("mcp: a handler asked for input the client did not declare it can give", "method", r.Method, "input", k, "needs", joinPath(missing))
			return true, MissingCapability(p, missing...)
		}
	}
	return true, nil
}

// InputAllowed returns nil when the client whose capabilities are caps
// declared what input request (its {"method", "params"}) needs in
// revision p, else the error naming the capability
// (MissingCapability): a server asks only for input the client can give.
func InputAllowed(p *protocol.Protocol, caps, request wire.Raw) error {
	method, params, err := SplitRequest(request)
	if err != nil {
		return err
	}
	if missing := inputCapability(caps, roleIn(p, method), params); missing != nil {
		return MissingCapability(p, missing...)
	}
	return nil
}

// sessionCaller is how a stateful session's handlers reach its client: the
// transport's Caller, refusing requests for input the client did not
// declare it can give (MissingCapability) before they are sent.
type sessionCaller struct{ sess *Session }

// Call implements Caller.
func (c sessionCaller) Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return c.sess.call(ctx, method, params, wire.To(result))
}

// CallInto implements Caller.
func (c sessionCaller) CallInto(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
	return c.sess.call(ctx, method, params, result)
}

// Notify implements Caller.
func (c sessionCaller) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	c.sess.mu.Lock()
	peer := c.sess.peer
	c.sess.mu.Unlock()
	if peer == nil {
		return ErrNoPeer
	}
	return peer.Notify(ctx, method, params)
}

// call sends a request to the session's client, if it declared the
// capability the request needs.
func (sess *Session) call(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
	sess.mu.Lock()
	peer, caps, mount := sess.peer, sess.clientCaps, sess.mount
	sess.mu.Unlock()
	if peer == nil {
		return ErrNoPeer
	}
	var p *protocol.Protocol
	if mount != nil {
		p = mount.Protocol
	}
	switch roleIn(p, method) {
	case protocol.RoleSampling, protocol.RoleElicitation, protocol.RoleRoots:
		var raw wire.Raw
		if params != nil {
			var err error
			if raw, err = wire.Marshal(params); err != nil {
				return err
			}
		}
		if missing := inputCapability(caps, roleIn(p, method), raw); missing != nil {
			return MissingCapability(p, missing...)
		}
	}
	return peer.CallInto(ctx, method, params, result)
}

// roleIn is the role of method in revision p (RoleNone when p is nil or
// lacks it).
func roleIn(p *protocol.Protocol, method string) protocol.Role {
	if p == nil {
		return protocol.RoleNone
	}
	if md := p.Methods[method]; md != nil {
		return md.Role
	}
	return protocol.RoleNone
}
