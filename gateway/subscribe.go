package gateway

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/listen"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"

	v26 "github.com/mcpgen/mcpgen/gateway/mcp/v20260728"
)

// Resource subscriptions. The front engine keeps its clients'
// subscriptions (resources/subscribe of a stateful session, the resource
// URIs of a subscriptions/listen stream) and tells them of updates
// (Server.NotifyResourceUpdated); the gateway holds one backend
// subscription per URI any front client subscribed to, shared, for as
// long as one does: a listen stream on the backend session (which, on a
// stateful backend, stands in with resources/subscribe), whose updates
// reach backendHandler.ResourceUpdated.

// upstream is the backend subscription to one resource.
type upstream struct {
	n      int // front subscriptions sharing it
	cancel context.CancelFunc
	ready  chan struct{} // closed once the backend acknowledged (or refused) it
	once   sync.Once
}

// maxUpstream bounds the resources subscribed to on the backend.
const maxUpstream = 4096

// subKey names a backend subscription: the backend serving the front
// client (its slot, over its lives, and the revision of the front
// client's session with it: the updates are that session's), and the
// URI.
type subKey struct {
	sl  *slot
	rev string
	uri string
}

// subRef is one front subscription: the backend subscription it holds
// and whose it is (counted against that principal's bound).
type subRef struct {
	key       subKey
	principal string
}

// subscribe adds a front subscription to uri, for the front request in
// ctx, and returns it. The first one on its backend session opens the
// backend subscription and waits (until ctx ends) for the backend to
// answer it — acknowledged, or refused (then the subscription is
// served, without updates, and the gateway logs why): an update right
// after the front client's subscription then reaches it. A backend that
// restarts is subscribed to again.
func (g *Gateway) subscribe(ctx context.Context, uri string) (subRef, error) {
	key, err := g.subKeyOf(ctx, uri)
	if err != nil {
		return subRef{}, err
	}
	ref := subRef{key, principalOf(ctx)}
	g.subMu.Lock()
	if per := maxUpstream / 4; g.subsBy[ref.principal] >= per {
		g.subMu.Unlock()
		return ref, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "this client's principal holds %d resource subscriptions through the gateway (its bound per principal): unsubscribe from some first", per)
	}
	if u := g.subs[key]; u != nil {
		u.n++
		g.subsBy[ref.principal]++
		ready := u.ready
		g.subMu.Unlock()
		return ref, g.waitSubscribed(ctx, ready, ref)
	}
	if len(g.subs) >= maxUpstream {
		g.subMu.Unlock()
		return ref, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "the gateway holds subscriptions to %d resources (its bound): unsubscribe from some first", maxUpstream)
	}
	sctx, cancel := context.WithCancel(context.Background())
	u := &upstream{n: 1, cancel: cancel, ready: make(chan struct{})}
	g.subs[key] = u
	g.subsBy[ref.principal]++
	g.subMu.Unlock()
	go g.hold(sctx, key, u)
	return ref, g.waitSubscribed(ctx, u.ready, ref)
}

// hold keeps the backend subscription of key open until sctx ends (the
// last front subscription went) or its slot is closed, subscribing again
// on each new life of the backend.
func (g *Gateway) hold(sctx context.Context, key subKey, u *upstream) {
	sl := key.sl
	sl.busy.Add(1) // a slot with subscriptions is not idle
	defer sl.busy.Add(-1)
	defer u.once.Do(func() { close(u.ready) })
	params := &v26.SubscriptionsListenRequestParams{Notifications: &v26.SubscriptionFilter{ResourceSubscriptions: []string{key.uri}}}
	for sctx.Err() == nil {
		in, err := sl.get(sctx)
		if errors.Is(err, errClosing) {
			return // the slot was closed: its session ended, or the gateway is closing
		}
		if err != nil {
			u.once.Do(func() { close(u.ready) })
			select { // the next start, or the end
			case <-sctx.Done():
			case <-time.After(sl.nextStart()):
			}
			continue
		}
		b := in.session(sctx, key.rev)
		// The stream ends with the instance (a stateful backend's
		// stands in locally, and would not notice it die).
		lctx, lcancel := context.WithCancel(sctx)
		stop := context.AfterFunc(in.ctx, lcancel)
		for ev, err := range listen.Stream(lctx, b.cs, params) {
			if err != nil {
				if sctx.Err() == nil && in.ctx.Err() == nil {
					g.log.Warn("gateway: the backend subscription ended; its updates no longer reach the front clients", "uri", key.uri, "err", err)
				}
				break
			}
			if ev.Method == listen.MethodAcknowledged {
				u.once.Do(func() { close(u.ready) })
			}
		}
		stop()
		lcancel()
		u.once.Do(func() { close(u.ready) })
		select { // a restart subscribes again
		case <-sctx.Done():
		case <-in.ctx.Done():
		}
	}
}

// subKeyOf is the key of a subscription to uri of the front request in
// ctx.
func (g *Gateway) subKeyOf(ctx context.Context, uri string) (subKey, error) {
	r := rt.RequestFrom(ctx)
	sl, err := g.slotFor(r)
	if err != nil {
		return subKey{}, err
	}
	rev := ""
	if r != nil {
		rev = r.ProtocolVersion()
	}
	return subKey{sl, rev, uri}, nil
}

// waitSubscribed waits for a backend subscription to be answered; if ctx
// ends first, the front subscription just added (ref) is dropped.
func (g *Gateway) waitSubscribed(ctx context.Context, ready <-chan struct{}, ref subRef) error {
	if err := wait(ctx, ready); err != nil {
		g.unsubscribe(ref)
		return err
	}
	return nil
}

// principalOf is the principal of the front request in ctx.
func principalOf(ctx context.Context) string {
	if r := rt.RequestFrom(ctx); r != nil {
		return r.Principal()
	}
	return ""
}

// wait waits for ready, or ctx to end.
func wait(ctx context.Context, ready <-chan struct{}) error {
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unsubscribe drops the front subscription ref.
func (g *Gateway) unsubscribe(ref subRef) {
	g.subMu.Lock()
	defer g.subMu.Unlock()
	u := g.subs[ref.key]
	if u == nil {
		return
	}
	if g.subsBy[ref.principal]--; g.subsBy[ref.principal] <= 0 {
		delete(g.subsBy, ref.principal)
	}
	if u.n--; u.n == 0 {
		u.cancel()
		delete(g.subs, ref.key)
	}
}

// sessionSub records a stateful session's subscription to uri (a set,
// as the engine keeps it); false if it had it already.
func (g *Gateway) sessionSub(sess *rt.Session, uri string, ref subRef) bool {
	g.subMu.Lock()
	defer g.subMu.Unlock()
	set := g.sessSubs[sess]
	if _, ok := set[uri]; ok {
		return false
	}
	if set == nil {
		set = map[string]subRef{}
		g.sessSubs[sess] = set
	}
	set[uri] = ref
	return true
}

// sessionUnsub forgets a stateful session's subscription to uri (all of
// them, with uri ""), returning what it held.
func (g *Gateway) sessionUnsub(sess *rt.Session, uri string) []subRef {
	g.subMu.Lock()
	defer g.subMu.Unlock()
	set := g.sessSubs[sess]
	var refs []subRef
	for u, ref := range set {
		if uri == "" || u == uri {
			refs = append(refs, ref)
			delete(set, u)
		}
	}
	if len(set) == 0 {
		delete(g.sessSubs, sess)
	}
	return refs
}

// sessionHas reports a stateful session's subscription to uri.
func (g *Gateway) sessionHas(sess *rt.Session, uri string) bool {
	g.subMu.Lock()
	defer g.subMu.Unlock()
	_, ok := g.sessSubs[sess][uri]
	return ok
}

// feature plugs the subscriptions into the front server, in front of
// what serves them there (the engine; listen.Feature). A stateful
// session's subscriptions are a set, as the engine keeps them: a second
// resources/subscribe to a URI holds nothing more, an unsubscribe from
// one it does not hold drops nothing, and they all go when the session
// ends (sessionEnded).
func (g *Gateway) feature() rt.Feature {
	return rt.FeatureFunc(func(reg *rt.Registry) error {
		uriOf := func(r *rt.Request) string {
			raw, _ := wire.MemberOf(r.Params(), "uri")
			var s string
			_ = wire.Unmarshal(raw, (*wireString)(&s))
			return s
		}
		reg.Route(rt.Route{Role: protocol.RoleSubscribe, Step: func(ctx context.Context, r *rt.Request, next rt.Next) (wire.Marshaler, error) {
			uri, sess := uriOf(r), r.Session()
			if sess == nil || g.sessionHas(sess, uri) {
				return next.Serve()
			}
			ref, err := g.subscribe(ctx, uri)
			if err != nil {
				return nil, err
			}
			if !g.sessionSub(sess, uri, ref) { // a concurrent subscribe won
				g.unsubscribe(ref)
				return next.Serve()
			}
			res, err := next.Serve()
			if err != nil {
				for _, ref := range g.sessionUnsub(sess, uri) {
					g.unsubscribe(ref)
				}
			}
			return res, err
		}})
		reg.Route(rt.Route{Role: protocol.RoleUnsubscribe, Step: func(ctx context.Context, r *rt.Request, next rt.Next) (wire.Marshaler, error) {
			res, err := next.Serve()
			if sess := r.Session(); err == nil && sess != nil {
				for _, ref := range g.sessionUnsub(sess, uriOf(r)) {
					g.unsubscribe(ref)
				}
			}
			return res, err
		}})
		reg.Route(rt.Route{Role: protocol.RoleListen, Step: func(ctx context.Context, r *rt.Request, next rt.Next) (wire.Marshaler, error) {
			var refs []subRef
			defer func() {
				for _, ref := range refs {
					g.unsubscribe(ref)
				}
			}()
			for _, uri := range listen.ParseFilter(r.Params()).ResourceSubscriptions {
				ref, err := g.subscribe(ctx, uri)
				if err != nil {
					return nil, err
				}
				refs = append(refs, ref)
			}
			return next.Serve()
		}})
		return nil
	})
}

// wireString decodes a JSON string.
type wireString string

func (s *wireString) DecodeJSON(d *wire.Decoder) error {
	v, err := d.Str()
	*s = wireString(v)
	return err
}
