package mcp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A client session's traffic: its calls and notifications to the server,
// each checked against what the server declared and passed through the
// client's middleware, and what the server sends it, served by the
// mounted handler (or the hosted tasks) before any Listen stream sees it.

// Call implements Caller. Stateless sessions add the _meta every request
// carries; calls with a progress callback (WithProgress) add a progress
// token; a cancelled ctx tells the server (notifications/cancelled, or,
// on stateless HTTP, the transport closes the request's stream).
//
// With ClientOptions.Cache, a fresh cached result of a cacheable method
// answers the call without a request.
//
// Call decodes through result's DecodeJSON method; generated clients call
// CallInto, which links only the decoders the program calls (wire.Into).
func (cs *ClientSession) Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return cs.CallInto(ctx, method, params, wire.To(result))
}

// CallInto implements Caller: Call decoding with result.Decode.
func (cs *ClientSession) CallInto(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
	if c := cs.opts.Cache; c != nil && cs.mount != nil {
		if md := cs.mount.Protocol.Methods[method]; md != nil && md.Cacheable {
			return c.Call(ctx, cs, method, params, result, func(ctx context.Context, result wire.Into) error {
				return cs.call(ctx, method, params, result)
			})
		}
	}
	return cs.call(ctx, method, params, result)
}

// call sends a request and decodes its result.
func (cs *ClientSession) call(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
	return cs.CallWithID(ctx, method, params, result, nil)
}

// CallWithID is CallInto without the cache, with onID (if not nil) learning
// the request's id before it is sent: a stream that the server's
// notifications name by the request's id (subscriptions/listen) is found
// by it. The session's middleware sees the call first.
func (cs *ClientSession) CallWithID(ctx context.Context, method string, params wire.Marshaler, result wire.Into, onID func(jsonrpc.ID)) error {
	if cs.outgoing == nil {
		return cs.send(ctx, method, params, result, onID)
	}
	m := cs.view(method, params, false)
	m.call = func(ctx context.Context) (wire.Marshaler, error) {
		if err := cs.send(ctx, method, m.sendParams(), result, onID); err != nil {
			return nil, err
		}
		res, _ := result.Value.(wire.Marshaler)
		return res, nil
	}
	_, err := cs.outgoing(ctx, m)
	return err
}

// send sends a request and waits for its result; a request whose
// capability the server did not declare fails here, after the session's
// middleware (which sees the refusal).
func (cs *ClientSession) send(ctx context.Context, method string, params wire.Marshaler, result wire.Into, onID func(jsonrpc.ID)) error {
	if err := cs.declared(method); err != nil {
		return err
	}
	onProgress, _ := ctx.Value(progressKey{}).(func(ProgressUpdate))
	var token string
	if onProgress != nil {
		token = "mcpgen-progress-" + strconv.FormatInt(cs.tokens.Add(1), 10)
		cs.mu.Lock()
		cs.progress[token] = onProgress
		cs.mu.Unlock()
		defer func() {
			cs.mu.Lock()
			delete(cs.progress, token)
			cs.mu.Unlock()
		}()
	}
	send := cs.era.params(cs, params, token)
	if ctx.Done() == nil || cs.roles[method] == protocol.RoleInitialize || cs.transportCancels() {
		// Nothing can cancel the call, a client never cancels initialize,
		// or the transport cancels by aborting the request (stateless
		// HTTP).
		return cs.conn.CallWithID(ctx, method, send, result, onID)
	}
	var id jsonrpc.ID
	var haveID bool
	err := cs.conn.CallWithID(ctx, method, send, result, func(i jsonrpc.ID) {
		id, haveID = i, true
		if onID != nil {
			onID(i)
		}
	})
	if err != nil && ctx.Err() != nil && haveID {
		// Tell the server to stop; it must not answer anymore.
		if name := cs.mount.Protocol.RoleName(protocol.RoleCancelled); name != "" {
			_ = cs.Notify(context.WithoutCancel(ctx), name, cancelParams{id, ctx.Err().Error()})
		}
	}
	return err
}

// UndeclaredError refuses a request, before it is sent, whose capability
// the server did not declare when it opened a stateful session (see
// ClientOptions.SendUndeclared).
type UndeclaredError struct {
	Method string
	// Capability is the member of the server's capabilities the request
	// needs ("tools", "resources.subscribe", …).
	Capability string
}

func (e *UndeclaredError) Error() string {
	return "mcp: " + e.Method + " needs the server capability " + e.Capability +
		", which the server did not declare (ClientOptions.SendUndeclared sends it anyway)"
}

// capabilityOf is the server capability each request needs, as a path in the
// server's capabilities, by role.
var capabilityOf = map[protocol.Role][]string{
	protocol.RoleToolsList:             {"tools"},
	protocol.RoleToolsCall:             {"tools"},
	protocol.RolePromptsList:           {"prompts"},
	protocol.RolePromptsGet:            {"prompts"},
	protocol.RoleResourcesList:         {"resources"},
	protocol.RoleResourceTemplatesList: {"resources"},
	protocol.RoleResourcesRead:         {"resources"},
	protocol.RoleSubscribe:             {"resources", "subscribe"},
	protocol.RoleUnsubscribe:           {"resources", "subscribe"},
	protocol.RoleSetLevel:              {"logging"},
	protocol.RoleComplete:              {"completions"},
}

// declared returns the error refusing a request whose capability the
// server did not declare, or nil.
func (cs *ClientSession) declared(method string) error {
	if len(cs.undeclared) == 0 {
		return nil
	}
	if c, ok := cs.undeclared[cs.roles[method]]; ok {
		return &UndeclaredError{Method: method, Capability: c}
	}
	return nil
}

// undeclaredRoles finds, once a stateful session is open, the requests
// whose capability the server did not declare at initialize (none with
// ClientOptions.SendUndeclared). A stateless server's capabilities may
// change from one request to the next, so its requests are not refused;
// nor are those a revision's capabilities have no member for (2024-11-05
// has no completions).
func (cs *ClientSession) undeclaredRoles() map[protocol.Role]string {
	if cs.opts.SendUndeclared || cs.Stateless() {
		return nil
	}
	caps, _ := wire.MemberOf(cs.result, "capabilities")
	out := map[protocol.Role]string{}
	for role, path := range capabilityOf {
		if !cs.mount.Protocol.Knows(path[0]) {
			continue
		}
		// A capability is an object ("tools": {}), or a flag inside one
		// ("resources": {"subscribe": true}).
		v := caps
		for _, p := range path {
			v, _ = wire.MemberOf(v, p)
		}
		if !(len(path) == 1 && v.Kind() == wire.Object || string(v) == "true") {
			out[role] = strings.Join(path, ".")
		}
	}
	return out
}

// AbortCanceller is implemented by client connections that cancel a
// request by aborting it (stateless Streamable HTTP closes its stream), so
// the session sends no notifications/cancelled.
type AbortCanceller interface {
	AbortCancels() bool
}

func (cs *ClientSession) transportCancels() bool {
	ac, ok := cs.conn.(AbortCanceller)
	return ok && ac.AbortCancels()
}

// Notify implements Caller; the session's middleware sees it first.
func (cs *ClientSession) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	if cs.outgoing == nil {
		return cs.conn.Notify(ctx, method, params)
	}
	m := cs.view(method, params, true)
	m.call = func(ctx context.Context) (wire.Marshaler, error) {
		return nil, cs.conn.Notify(ctx, method, m.sendParams())
	}
	_, err := cs.outgoing(ctx, m)
	return err
}

// view is the middleware's view of a message the session sends.
func (cs *ClientSession) view(method string, params wire.Marshaler, notification bool) *Message {
	return &Message{method: method, role: cs.roles[method], send: params, notification: notification, outgoing: true, revision: cs.version, transport: cs.transport}
}

// receive serves a message from the server (handle), with the session's
// middleware around it and, by default, the recovery from panics.
func (cs *ClientSession) receive(ctx context.Context, req *jsonrpc.Request) (res wire.Marshaler, err error) {
	if cs.incoming == nil {
		if cs.recover {
			defer func() {
				if p := recover(); p != nil {
					cs.log.ErrorContext(ctx, "mcp: panic serving a message", "method", req.Method, "id", req.ID.String(), "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					res, err = nil, errPanicked
				}
			}()
		}
		return cs.handle(ctx, req)
	}
	m := &Message{method: req.Method, role: cs.roles[req.Method], id: req.ID, notification: req.IsNotification, params: req.Params, revision: cs.version, transport: cs.transport}
	m.call = func(ctx context.Context) (wire.Marshaler, error) { return cs.handle(ctx, req) }
	return cs.incoming(ctx, m)
}

// ServeInput implements protocol.InputServer: an input request the
// session's handler answers (a round of a multi round-trip request) is an
// incoming message to the session's middleware.
func (cs *ClientSession) ServeInput(ctx context.Context, method string, params wire.Marshaler, serve func(context.Context) (wire.Marshaler, error)) (wire.Marshaler, error) {
	if cs.incoming == nil {
		return serve(ctx)
	}
	m := &Message{method: method, role: cs.roles[method], send: params, revision: cs.version, transport: cs.transport, call: serve}
	return cs.incoming(ctx, m)
}

// handle serves the server's requests and notifications. A notification
// reaches the handler (its typed method, else OnNotification) before any
// Listen stream yields it: who sees it on a stream finds the handler's
// record of it already made.
func (cs *ClientSession) handle(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	switch cs.roles[req.Method] {
	case protocol.RolePing:
		return emptyObject, nil
	case protocol.RoleProgress:
		cs.onProgress(req.Params)
		return nil, nil
	case protocol.RoleCancelled:
		cs.onCancelled(req.Params)
		return nil, nil
	}
	if req.IsNotification {
		if c := cs.opts.Cache; c != nil {
			c.Notified(cs, req.Method, req.Params)
		}
		res, err := cs.serve(ctx, req)
		cs.mu.Lock()
		ws := cs.watchers
		cs.mu.Unlock()
		for _, w := range ws {
			w.f(req.Method, req.Params)
		}
		return res, err
	}
	return cs.serve(ctx, req)
}

// serve hands a request or notification of the server to the handler.
func (cs *ClientSession) serve(ctx context.Context, req *jsonrpc.Request) (wire.Marshaler, error) {
	m := cs.mount
	if m == nil {
		return nil, jsonrpc.MethodNotFound(req.Method)
	}
	md := m.Protocol.Methods[req.Method]
	if cs.opts.Tasks != nil && md != nil && md.FromServer && !req.IsNotification {
		var serve func(ctx context.Context, params wire.Raw) (wire.Marshaler, error)
		if md.Serve != nil && md.Implemented(m.Handler) {
			serve = func(ctx context.Context, params wire.Raw) (wire.Marshaler, error) {
				return md.Serve(ctx, m.Handler, params)
			}
		}
		if res, err, ok := cs.opts.Tasks.Host(ctx, cs, md, req, serve); ok {
			return res, err
		}
	}
	if md != nil && md.FromServer && md.Serve != nil && md.Implemented(m.Handler) {
		return md.Serve(ctx, m.Handler, req.Params)
	}
	if req.IsNotification {
		cs.mu.Lock()
		f := cs.notes
		cs.mu.Unlock()
		if f != nil {
			f(ctx, req.Method, req.Params)
		}
		return nil, nil
	}
	return nil, jsonrpc.MethodNotFound(req.Method)
}

// ErrCancelledByServer ends a call the server cancelled: on the stateless
// era's stdio, a subscriptions/listen stream the server tore down.
var ErrCancelledByServer = errors.New("mcp: the server ended the request")

// onCancelled handles the server's notifications/cancelled, as the era
// says (clientEra.cancelled); invalid cancellations are ignored.
func (cs *ClientSession) onCancelled(params wire.Raw) {
	id, ok := cancelledID(params)
	if !ok {
		return
	}
	var reason wireString
	if r, found := wire.MemberOf(params, "reason"); found {
		_ = wire.UnmarshalWith(r, reason.DecodeJSON)
	}
	cs.era.cancelled(cs, id, string(reason))
}

func (cs *ClientSession) onProgress(params wire.Raw) {
	var token wire.StringOrInt
	u := ProgressUpdate{Total: -1}
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "progressToken":
			err = token.DecodeJSON(d)
		case "progress":
			u.Progress, err = d.Float64()
		case "total":
			u.Total, err = d.Float64()
		case "message":
			u.Message, err = d.Str()
		default:
			err = d.Skip()
		}
		return err
	})
	if token.IsInt() {
		return
	}
	cs.mu.Lock()
	f := cs.progress[token.Str()]
	cs.mu.Unlock()
	if f != nil {
		f(u)
	}
}
