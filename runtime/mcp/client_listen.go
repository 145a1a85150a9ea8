package mcp

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// ListenEvent is one notification of a subscriptions/listen stream: the
// acknowledgement first, then the changes the stream was opened for.
type ListenEvent struct {
	// Method is the notification's method (for example
	// notifications/tools/list_changed).
	Method string
	// Params are its params, with the _meta that names the subscription.
	Params wire.Raw
	// SubscriptionID is the subscription the server delivered it on: the
	// listen request's id as a string.
	SubscriptionID string
}

// ErrNoListen is returned by Listen on a revision without
// subscriptions/listen.
var ErrNoListen = errors.New("mcp: the negotiated revision has no subscriptions/listen")

// Listen opens a subscriptions/listen stream (2026-07-28 on) with params
// (the revision's SubscriptionsListenRequestParams: which changes to
// receive) and yields its notifications in arrival order until the server
// ends the stream — with its result, or on stdio with
// notifications/cancelled — or ctx ends. Leaving the loop early cancels the
// stream. A failure other than the server's ending is yielded last as the
// error.
//
// Notifications wait in an unbounded queue for the loop, so that a slow
// consumer never stalls the connection's other traffic; the cache and the
// handler (its typed method, else OnNotification) see them as they
// arrive, before the loop does.
//
// On a session of the stateful era, which has no subscriptions/listen,
// Listen does what the stream would: it subscribes to the filter's
// resources with resources/subscribe (when the server declared resource
// subscriptions), yields an acknowledgement (method
// notifications/subscriptions/acknowledged, params {"notifications": the
// part of the filter the server's capabilities honour}) and then the
// changes the filter asks for as the server sends them, and unsubscribes
// when the loop ends. So one client serves both eras.
func (cs *ClientSession) Listen(ctx context.Context, params wire.Marshaler) iter.Seq2[ListenEvent, error] {
	return func(yield func(ListenEvent, error) bool) {
		name := ""
		if cs.mount != nil {
			name = cs.mount.Protocol.RoleName(protocol.RoleListen)
		}
		if name == "" && cs.mount != nil && !cs.Stateless() {
			cs.listenStateful(ctx, params, yield)
			return
		}
		if name == "" {
			yield(ListenEvent{}, ErrNoListen)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		q := &listenQueue{wake: make(chan struct{}, 1)}
		var sid string
		done := make(chan error, 1)
		go func() {
			var result wire.Raw
			err := cs.callID(ctx, name, params, &result, func(id jsonrpc.ID) {
				sid = id.String()
				cs.mu.Lock()
				if cs.listens == nil {
					cs.listens = map[string]*listenQueue{}
				}
				cs.listens[sid] = q
				cs.mu.Unlock()
			})
			done <- err
		}()
		var err error
		ended := false
		for !ended {
			select {
			case err = <-done:
				ended = true
			case <-q.wake:
			}
			for _, ev := range q.take() {
				if !yield(ev, nil) {
					cancel()
					<-done
					cs.unlisten(sid)
					return
				}
			}
		}
		cs.unlisten(sid)
		for _, ev := range q.take() { // what arrived with the end
			if !yield(ev, nil) {
				return
			}
		}
		if err != nil && !errors.Is(err, ErrCancelledByServer) && ctx.Err() == nil {
			yield(ListenEvent{}, err)
		}
	}
}

// unlisten forgets the queue of subscription sid.
func (cs *ClientSession) unlisten(sid string) {
	if sid == "" {
		return
	}
	cs.mu.Lock()
	delete(cs.listens, sid)
	cs.mu.Unlock()
}

// deliverListen queues a notification carrying a subscription id for the
// Listen loop of that subscription; false when there is none.
func (cs *ClientSession) deliverListen(method string, params wire.Raw) bool {
	meta, ok := wire.MemberOf(params, "_meta")
	if !ok {
		return false
	}
	raw, ok := wire.MemberOf(meta, MetaSubscriptionID)
	if !ok {
		return false
	}
	// A string (the draft) or the request id itself (2026-07-28).
	var id jsonrpc.ID
	if wire.Unmarshal(raw, &id) != nil {
		return false
	}
	sid := id.String()
	cs.mu.Lock()
	q := cs.listens[sid]
	cs.mu.Unlock()
	if q == nil {
		return false
	}
	q.put(ListenEvent{Method: method, Params: append(wire.Raw(nil), params...), SubscriptionID: sid})
	return true
}

// listenQueue holds a stream's notifications until the Listen loop takes
// them.
type listenQueue struct {
	mu     sync.Mutex
	events []ListenEvent
	wake   chan struct{} // capacity 1: something was put
}

func (q *listenQueue) put(ev ListenEvent) {
	q.mu.Lock()
	q.events = append(q.events, ev)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *listenQueue) take() []ListenEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs := q.events
	q.events = nil
	return evs
}

// MethodListenAcknowledged is the method of the first ListenEvent of a
// stream: the server's acknowledgement (stateless era), or the one Listen
// makes on a stateful session.
const MethodListenAcknowledged = "notifications/subscriptions/acknowledged"

// statefulListen is one Listen loop on a stateful session.
type statefulListen struct {
	q      *listenQueue
	filter ListenFilter // what the server honours
	sid    string
}

// listenStateful is Listen on a stateful session (see Listen).
func (cs *ClientSession) listenStateful(ctx context.Context, params wire.Marshaler, yield func(ListenEvent, error) bool) {
	var raw wire.Raw
	if params != nil {
		var err error
		if raw, err = wire.Marshal(params); err != nil {
			yield(ListenEvent{}, fmt.Errorf("mcp: Listen: params: %w", err))
			return
		}
	}
	want := ParseListenFilter(raw)
	caps := cs.ServerCapabilities()
	declared := func(capability, flag string) bool {
		c, _ := wire.MemberOf(caps, capability)
		v, _ := wire.MemberOf(c, flag)
		return string(v) == "true"
	}
	var got ListenFilter
	got.ToolsListChanged = want.ToolsListChanged && declared("tools", "listChanged")
	got.PromptsListChanged = want.PromptsListChanged && declared("prompts", "listChanged")
	got.ResourcesListChanged = want.ResourcesListChanged && declared("resources", "listChanged")
	p := cs.mount.Protocol
	subscribe, unsubscribe := p.RoleName(protocol.RoleSubscribe), p.RoleName(protocol.RoleUnsubscribe)
	if subscribe != "" && declared("resources", "subscribe") {
		got.ResourceSubscriptions = want.ResourceSubscriptions
	}
	// Registered before subscribing, so that an update sent right after
	// resources/subscribe is not missed (it waits behind the ack). The
	// list is copied on write: deliverStateful reads it unlocked.
	l := &statefulListen{q: &listenQueue{wake: make(chan struct{}, 1)}, filter: got, sid: fmt.Sprintf("stateful-%d", cs.tokens.Add(1))}
	cs.mu.Lock()
	cs.statefulListens = append(slices.Clip(cs.statefulListens), l)
	cs.mu.Unlock()
	defer func() {
		cs.mu.Lock()
		cs.statefulListens = slices.DeleteFunc(slices.Clone(cs.statefulListens), func(x *statefulListen) bool { return x == l })
		cs.mu.Unlock()
	}()
	var subscribed []string
	defer func() {
		if len(subscribed) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, uri := range subscribed {
			if err := cs.Call(ctx, unsubscribe, uriParams(uri), nil); err != nil {
				cs.log.DebugContext(ctx, "mcp: Listen: unsubscribing", "uri", uri, "err", err)
			}
		}
	}()
	for _, uri := range got.ResourceSubscriptions {
		if err := cs.Call(ctx, subscribe, uriParams(uri), nil); err != nil {
			yield(ListenEvent{}, fmt.Errorf("mcp: Listen: %s %s: %w", subscribe, uri, err))
			return
		}
		subscribed = append(subscribed, uri)
	}
	e := wire.GetEncoder()
	e.ObjectStart()
	e.Field("notifications")
	got.EncodeJSON(e)
	e.ObjectEnd()
	ack := ListenEvent{Method: MethodListenAcknowledged, Params: slices.Clone(e.Bytes()), SubscriptionID: l.sid}
	wire.PutEncoder(e)
	if !yield(ack, nil) {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-l.q.wake:
		}
		for _, ev := range l.q.take() {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// deliverStateful queues a notification of a stateful session for the
// Listen loops whose filter wants it.
func (cs *ClientSession) deliverStateful(method string, params wire.Raw) {
	cs.mu.Lock()
	ls := cs.statefulListens
	cs.mu.Unlock()
	if len(ls) == 0 {
		return
	}
	r := cs.roles[method]
	var uri string
	if r == protocol.RoleResourceUpdated {
		if v, ok := wire.MemberOf(params, "uri"); ok {
			uri, _ = wire.NewDecoder(v).Str()
		}
	}
	for _, l := range ls {
		if l.filter.Wants(r, uri) {
			l.q.put(ListenEvent{Method: method, Params: slices.Clone(params), SubscriptionID: l.sid})
		}
	}
}
