package listen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Event is one notification of a subscriptions/listen stream: the
// acknowledgement first, then the changes the stream was opened for.
type Event struct {
	// Method is the notification's method (for example
	// notifications/tools/list_changed).
	Method string
	// Params are its params, with the _meta that names the subscription.
	Params wire.Raw
	// SubscriptionID is the subscription the server delivered it on: the
	// listen request's id as a string.
	SubscriptionID string
}

// ErrNoListen is yielded by Stream on a session whose revision has no
// subscriptions/listen and that cannot stand in for it.
var ErrNoListen = errors.New("listen: the negotiated revision has no subscriptions/listen")

// MaxQueued bounds the notifications a Stream holds for a loop that has
// not taken them yet.
const MaxQueued = 4096

// ErrFellBehind ends a Stream whose loop left more than MaxQueued
// notifications waiting.
var ErrFellBehind = fmt.Errorf("listen: the loop fell %d notifications behind the stream", MaxQueued)

// MethodAcknowledged is the method of the first Event of a stream: the
// server's acknowledgement (stateless era), or the one Stream makes on a
// stateful session.
const MethodAcknowledged = "notifications/subscriptions/acknowledged"

// Stream opens a subscriptions/listen stream on cs (2026-07-28 on) with
// params (the revision's SubscriptionsListenRequestParams: which changes
// to receive) and yields its notifications in arrival order until the
// server ends the stream — with its result, or on stdio with
// notifications/cancelled — or ctx ends. Leaving the loop early cancels
// the stream. A failure other than the server's ending is yielded last as
// the error.
//
// Notifications wait in a queue for the loop, so that a slow consumer
// never stalls the connection's other traffic; the handler (its typed
// method, else OnNotification) sees them as they arrive, before the loop
// does. The queue holds at most MaxQueued: a loop that falls further
// behind ends, the stream cancelled, with ErrFellBehind.
//
// On a session of the stateful era, which has no subscriptions/listen,
// Stream does what the stream would: it subscribes to the filter's
// resources with resources/subscribe (when the server declared resource
// subscriptions), yields an acknowledgement (method MethodAcknowledged,
// params {"notifications": the part of the filter the server's
// capabilities honour}) and then the changes the filter asks for as the
// server sends them, and unsubscribes when the loop ends. So one client
// serves both eras.
func Stream(ctx context.Context, cs *mcp.ClientSession, params wire.Marshaler) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		p := cs.Protocol()
		name := ""
		if p != nil {
			name = p.RoleName(protocol.RoleListen)
		}
		if name == "" && p != nil && !cs.Stateless() {
			streamStateful(ctx, cs, params, yield)
			return
		}
		if name == "" {
			yield(Event{}, ErrNoListen)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		q := &queue{wake: make(chan struct{}, 1)}
		var mu sync.Mutex
		var sid string
		stop := cs.Watch(func(method string, params wire.Raw) {
			mu.Lock()
			want := sid
			mu.Unlock()
			if got, ok := subscriptionOf(params); ok && got == want && want != "" {
				q.put(Event{Method: method, Params: slices.Clone(params), SubscriptionID: got})
			}
		})
		defer stop()
		done := make(chan error, 1)
		go func() {
			var result wire.Raw
			done <- cs.CallWithID(ctx, name, params, result.Into(), func(id jsonrpc.ID) {
				mu.Lock()
				sid = id.String()
				mu.Unlock()
			})
		}()
		var err error
		for ended := false; !ended; {
			select {
			case err = <-done:
				ended = true
			case <-q.wake:
			}
			if !q.drain(yield) {
				cancel()
				<-done
				return
			}
		}
		if err != nil && !errors.Is(err, mcp.ErrCancelledByServer) && ctx.Err() == nil {
			yield(Event{}, err)
		}
	}
}

// subscriptionOf reads the subscription id a notification's _meta names:
// a string (the draft) or the listen request's id itself (2026-07-28).
func subscriptionOf(params wire.Raw) (string, bool) {
	meta, ok := wire.MemberOf(params, "_meta")
	if !ok {
		return "", false
	}
	raw, ok := wire.MemberOf(meta, mcp.MetaSubscriptionID)
	if !ok {
		return "", false
	}
	var id jsonrpc.ID
	if wire.UnmarshalWith(raw, id.DecodeJSON) != nil {
		return "", false
	}
	return id.String(), true
}

// queue holds a stream's notifications until the loop takes them.
type queue struct {
	mu     sync.Mutex
	events []Event
	over   bool          // more than MaxQueued were put
	wake   chan struct{} // capacity 1: something was put
}

func (q *queue) put(ev Event) {
	q.mu.Lock()
	if len(q.events) < MaxQueued {
		q.events = append(q.events, ev)
	} else {
		q.over = true
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns what waits; over reports that the loop fell behind.
func (q *queue) take() (evs []Event, over bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	evs, over = q.events, q.over
	q.events = nil
	return evs, over
}

// drain yields what waits in q; false when the loop is to end (it left,
// or fell behind: then yielded ErrFellBehind).
func (q *queue) drain(yield func(Event, error) bool) bool {
	evs, over := q.take()
	for _, ev := range evs {
		if !yield(ev, nil) {
			return false
		}
	}
	if over {
		yield(Event{}, ErrFellBehind)
		return false
	}
	return true
}

// streamStateful is Stream on a stateful session (see Stream).
func streamStateful(ctx context.Context, cs *mcp.ClientSession, params wire.Marshaler, yield func(Event, error) bool) {
	var raw wire.Raw
	if params != nil {
		var err error
		if raw, err = wire.Marshal(params); err != nil {
			yield(Event{}, fmt.Errorf("listen: params: %w", err))
			return
		}
	}
	want := ParseFilter(raw)
	caps := cs.ServerCapabilities()
	declared := func(capability, flag string) bool {
		c, _ := wire.MemberOf(caps, capability)
		v, _ := wire.MemberOf(c, flag)
		return string(v) == "true"
	}
	var got Filter
	got.ToolsListChanged = want.ToolsListChanged && declared("tools", "listChanged")
	got.PromptsListChanged = want.PromptsListChanged && declared("prompts", "listChanged")
	got.ResourcesListChanged = want.ResourcesListChanged && declared("resources", "listChanged")
	p := cs.Protocol()
	subscribe, unsubscribe := p.RoleName(protocol.RoleSubscribe), p.RoleName(protocol.RoleUnsubscribe)
	if subscribe != "" && declared("resources", "subscribe") {
		got.ResourceSubscriptions = want.ResourceSubscriptions
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	sid := "stateful-" + hex.EncodeToString(nonce[:])
	// Watching before subscribing, so that an update sent right after
	// resources/subscribe is not missed (it waits behind the ack).
	q := &queue{wake: make(chan struct{}, 1)}
	stop := cs.Watch(func(method string, params wire.Raw) {
		if _, ok := subscriptionOf(params); ok {
			return // a stream's, not the session's
		}
		var uri string
		r := roleOf(p, method)
		if r == protocol.RoleResourceUpdated {
			if v, ok := wire.MemberOf(params, "uri"); ok {
				uri, _ = wire.NewDecoder(v).Str()
			}
		}
		if got.Wants(r, uri) {
			q.put(Event{Method: method, Params: slices.Clone(params), SubscriptionID: sid})
		}
	})
	defer stop()
	var subscribed []string
	defer func() {
		if len(subscribed) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, uri := range subscribed {
			if err := cs.CallInto(ctx, unsubscribe, wire.StrMember{Name: "uri", Value: uri}, wire.Into{}); err != nil {
				cs.Logger().DebugContext(ctx, "listen: unsubscribing", "uri", uri, "err", err)
			}
		}
	}()
	for _, uri := range got.ResourceSubscriptions {
		if err := cs.CallInto(ctx, subscribe, wire.StrMember{Name: "uri", Value: uri}, wire.Into{}); err != nil {
			yield(Event{}, fmt.Errorf("listen: %s %s: %w", subscribe, uri, err))
			return
		}
		subscribed = append(subscribed, uri)
	}
	e := wire.GetEncoder()
	e.ObjectStart()
	e.Field("notifications")
	got.EncodeJSON(e)
	e.ObjectEnd()
	ack := Event{Method: MethodAcknowledged, Params: slices.Clone(e.Bytes()), SubscriptionID: sid}
	wire.PutEncoder(e)
	if !yield(ack, nil) {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		if !q.drain(yield) {
			return
		}
	}
}

// roleOf is the role of a method of revision p.
func roleOf(p *protocol.Protocol, method string) protocol.Role {
	if m := p.Methods[method]; m != nil {
		return m.Role
	}
	return protocol.RoleNone
}
