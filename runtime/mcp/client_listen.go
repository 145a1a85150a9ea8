package mcp

import (
	"context"
	"errors"
	"iter"
	"sync"

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
// consumer never stalls the connection's other traffic; the cache and
// OnNotification see them as they arrive.
func (cs *ClientSession) Listen(ctx context.Context, params wire.Marshaler) iter.Seq2[ListenEvent, error] {
	return func(yield func(ListenEvent, error) bool) {
		name := ""
		if cs.mount != nil {
			name = cs.mount.Protocol.RoleName(protocol.RoleListen)
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
