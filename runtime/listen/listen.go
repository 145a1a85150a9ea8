// Package listen is subscriptions/listen (2026-07-28 on), both sides: a
// stream a client opens to hear of the server's list changes and resource
// updates. A client opens one with Stream (which, on a stateful session,
// stands in for it with resources/subscribe and the session's
// notifications). A server serves them once Feature is plugged in
// (mcp.ServerOptions.Features). A
// stream is acknowledged with the part of the requested notifications the
// server honours (what it serves, list changes only when it declares
// listChanged), then carries each announcement it asked for
// (mcp.Server.NotifyListChanged, NotifyResourceUpdated: on this instance,
// or through a Broadcast on another), every notification with the
// stream's subscription id, until the client leaves or the server ends it
// (a drain: the result, or on stdio the revision's cancellation).
//
// Streams cost a goroutine and a transport stream each for as long as
// they last, so they are bounded: Options.MaxStreamsPerClient per client
// (its principal, else its address), Options.MaxStreams in all; a stream
// beyond either is refused with -32603 saying which.
package listen

import (
	"context"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Options bound the listen streams of a server.
type Options struct {
	// MaxStreamsPerClient bounds the streams one client (its principal,
	// else its address; the stdio connection is one client) holds open
	// at once (default 16).
	MaxStreamsPerClient int
	// MaxStreams bounds the streams of every client (default 10,000).
	MaxStreams int
}

// Defaults of Options.
const (
	DefaultMaxStreamsPerClient = 16
	DefaultMaxStreams          = 10000
)

// Feature serves subscriptions/listen on every revision that has it.
func Feature(o Options) mcp.Feature {
	if o.MaxStreamsPerClient <= 0 {
		o.MaxStreamsPerClient = DefaultMaxStreamsPerClient
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	h := &hub{o: o, streams: map[*stream]struct{}{}, perClient: map[string]int{}}
	return mcp.FeatureFunc(h.attach)
}

// hub is the streams of one server.
type hub struct {
	o   Options
	srv *mcp.Server

	mu        sync.Mutex
	streams   map[*stream]struct{}
	perClient map[string]int
}

// stream is one subscriptions/listen stream.
type stream struct {
	r         *mcp.Request
	filter    Filter // what the server honours
	principal string // who opened it
	client    string // its key for the bounds
	// acked is held until the acknowledgement is out: the stream is
	// registered before it, so a change right after the client reads the
	// ack is not missed, and a notification never overtakes the ack.
	acked sync.RWMutex
}

func (h *hub) attach(reg *mcp.Registry) error {
	h.srv = reg.Server()
	reg.Route(mcp.Route{Role: protocol.RoleListen, Step: h.serve})
	reg.OnAnnounce(h.announce)
	return nil
}

// errTooMany are the refusals of a stream beyond the bounds.
var (
	errTooManyForClient = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "too many subscriptions/listen streams open for this client: end one first"}
	errTooMany          = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "too many subscriptions/listen streams open: try again later"}
)

// serve serves subscriptions/listen: it acknowledges with the honoured
// subset of the requested notifications, then delivers them, each
// carrying the subscription id, until the client goes away (no answer) or
// the server ends the stream (SubscriptionsListenResult).
func (h *hub) serve(ctx context.Context, r *mcp.Request, _ mcp.Next) (wire.Marshaler, error) {
	if err := r.ValidateParams(); err != nil {
		return nil, err
	}
	want := ParseFilter(r.Params())
	var got Filter
	if h.srv.Options().ListChanged {
		got.ToolsListChanged = want.ToolsListChanged && r.Serves(protocol.RoleToolsList)
		got.PromptsListChanged = want.PromptsListChanged && r.Serves(protocol.RolePromptsList)
		got.ResourcesListChanged = want.ResourcesListChanged && r.Serves(protocol.RoleResourcesList)
	}
	if r.Serves(protocol.RoleResourcesRead) {
		got.ResourceSubscriptions = want.ResourceSubscriptions
	}
	st := &stream{r: r, filter: got, principal: r.Principal(), client: clientKey(r)}
	st.acked.Lock()
	if err := h.add(st); err != nil {
		st.acked.Unlock()
		return nil, err
	}
	defer h.remove(st)
	ended, done := r.Stream()
	defer done()
	ack := ackParams{filter: got, id: r.ID}
	err := r.Notify(ctx, r.Protocol.RoleName(protocol.RoleListenAcknowledged), ack)
	st.acked.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-ended:
	}
	if r.EndStream(ctx, "the server ended the subscription stream") {
		return nil, context.Canceled
	}
	return endResult{id: r.ID}, nil
}

// clientKey names the client of a stream for the bounds.
func clientKey(r *mcp.Request) string {
	if p := r.Principal(); p != "" {
		return "principal " + p
	}
	return "address " + r.ClientAddress()
}

// add registers a stream within the bounds.
func (h *hub) add(st *stream) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.perClient[st.client] >= h.o.MaxStreamsPerClient:
		return errTooManyForClient
	case len(h.streams) >= h.o.MaxStreams:
		return errTooMany
	}
	h.streams[st] = struct{}{}
	h.perClient[st.client]++
	return nil
}

func (h *hub) remove(st *stream) {
	h.mu.Lock()
	delete(h.streams, st)
	if n := h.perClient[st.client] - 1; n > 0 {
		h.perClient[st.client] = n
	} else {
		delete(h.perClient, st.client)
	}
	h.mu.Unlock()
}

// announce delivers an announcement to the streams that asked for it.
func (h *hub) announce(ctx context.Context, a mcp.Announcement) {
	h.mu.Lock()
	streams := make([]*stream, 0, len(h.streams))
	for st := range h.streams {
		streams = append(streams, st)
	}
	h.mu.Unlock()
	for _, st := range streams {
		if a.Principals != nil && !slices.Contains(a.Principals, st.principal) {
			continue
		}
		role, uri := mcp.ListRole(a.List), ""
		if a.List == 0 {
			role, uri = protocol.RoleResourceUpdated, a.URI
		}
		if st.filter.Wants(role, uri) {
			st.send(ctx, role, uri)
		}
	}
}

// send delivers the notification in role r (about uri, for updates) on
// the stream, with its subscription id.
func (st *stream) send(ctx context.Context, role protocol.Role, uri string) {
	method := st.r.Protocol.RoleName(role)
	if method == "" {
		return
	}
	st.acked.RLock()
	defer st.acked.RUnlock()
	_ = st.r.Notify(ctx, method, noteParams{uri: uri, id: st.r.ID})
}

// ackParams are the params of the acknowledgement.
type ackParams struct {
	filter Filter
	id     jsonrpc.ID
}

func (a ackParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"notifications":`)
	a.filter.EncodeJSON(e)
	subscriptionMeta(e, a.id)
	e.ObjectEnd()
}

// noteParams are the params of a notification on a stream: the URI of a
// resource update, and the subscription id.
type noteParams struct {
	uri string
	id  jsonrpc.ID
}

func (n noteParams) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	if n.uri != "" {
		e.FieldRaw(`"uri":`)
		e.Str(n.uri)
	}
	subscriptionMeta(e, n.id)
	e.ObjectEnd()
}

// endResult is the result of a stream the server ended.
type endResult struct{ id jsonrpc.ID }

func (r endResult) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"resultType":`)
	e.Str("complete")
	subscriptionMeta(e, r.id)
	e.ObjectEnd()
}

// subscriptionMeta writes the _meta member naming the subscription.
func subscriptionMeta(e *wire.Encoder, id jsonrpc.ID) {
	e.FieldRaw(`"_meta":`)
	e.ObjectStart()
	e.Field(mcp.MetaSubscriptionID)
	id.EncodeJSON(e)
	e.ObjectEnd()
}
