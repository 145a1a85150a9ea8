package gateway

import (
	"context"
	"sync"
	"time"

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

// subscribe adds a front subscription to uri, for the front request in
// ctx. The first one on its backend session opens the backend
// subscription and waits (until ctx ends) for the backend to acknowledge
// it: an update right after the front client's subscription then
// reaches it. A backend that restarts is subscribed to again.
func (g *Gateway) subscribe(ctx context.Context, uri string) error {
	key, err := g.subKeyOf(ctx, uri)
	if err != nil {
		return err
	}
	principal := principalOf(ctx)
	g.subMu.Lock()
	if per := maxUpstream / 4; g.subsBy[principal] >= per {
		g.subMu.Unlock()
		return rt.InvalidParams("/params/uri", "this client's principal holds 1024 resource subscriptions through the gateway (its bound per principal): unsubscribe from some first")
	}
	if u := g.subs[key]; u != nil {
		u.n++
		g.subsBy[principal]++
		ready := u.ready
		g.subMu.Unlock()
		return g.waitSubscribed(ctx, ready, uri)
	}
	if len(g.subs) >= maxUpstream {
		g.subMu.Unlock()
		return rt.InvalidParams("/params/uri", "the gateway holds subscriptions to 4096 resources (its bound): unsubscribe from some first")
	}
	sctx, cancel := context.WithCancel(context.Background())
	u := &upstream{n: 1, cancel: cancel, ready: make(chan struct{})}
	g.subs[key] = u
	g.subsBy[principal]++
	g.subMu.Unlock()
	params := &v26.SubscriptionsListenRequestParams{Notifications: &v26.SubscriptionFilter{ResourceSubscriptions: []string{uri}}}
	go func() {
		defer u.once.Do(func() { close(u.ready) })
		for sctx.Err() == nil {
			in, err := key.sl.get(sctx)
			if err != nil {
				u.once.Do(func() { close(u.ready) })
				select { // the next start, or the end
				case <-sctx.Done():
				case <-time.After(key.sl.nextStart()):
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
						g.log.Warn("gateway: the backend subscription ended; its updates no longer reach the front clients", "uri", uri, "err", err)
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
	}()
	return g.waitSubscribed(ctx, u.ready, uri)
}

// waitSubscribed waits for a backend subscription to be acknowledged; if
// ctx ends first, the front subscription just added is dropped.
func (g *Gateway) waitSubscribed(ctx context.Context, ready <-chan struct{}, uri string) error {
	if err := wait(ctx, ready); err != nil {
		g.unsubscribe(context.WithoutCancel(ctx), uri)
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

// wait waits for ready, or ctx to end.
func wait(ctx context.Context, ready <-chan struct{}) error {
	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unsubscribe drops a front subscription to uri of the front request in
// ctx.
func (g *Gateway) unsubscribe(ctx context.Context, uri string) {
	key, err := g.subKeyOf(ctx, uri)
	if err != nil {
		return
	}
	g.subMu.Lock()
	defer g.subMu.Unlock()
	u := g.subs[key]
	if u == nil {
		return
	}
	principal := principalOf(ctx)
	if g.subsBy[principal]--; g.subsBy[principal] <= 0 {
		delete(g.subsBy, principal)
	}
	if u.n--; u.n == 0 {
		u.cancel()
		delete(g.subs, key)
	}
}

// feature plugs the subscriptions into the front server, in front of
// what serves them there (the engine; listen.Feature).
func (g *Gateway) feature() rt.Feature {
	return rt.FeatureFunc(func(reg *rt.Registry) error {
		uriOf := func(r *rt.Request) string {
			raw, _ := wire.MemberOf(r.Params(), "uri")
			var s string
			_ = wire.Unmarshal(raw, (*wireString)(&s))
			return s
		}
		reg.Route(rt.Route{Role: protocol.RoleSubscribe, Step: func(ctx context.Context, r *rt.Request, next rt.Next) (wire.Marshaler, error) {
			uri := uriOf(r)
			if err := g.subscribe(ctx, uri); err != nil {
				return nil, err
			}
			res, err := next.Serve()
			if err != nil {
				g.unsubscribe(ctx, uri)
			}
			return res, err
		}})
		reg.Route(rt.Route{Role: protocol.RoleUnsubscribe, Step: func(ctx context.Context, r *rt.Request, next rt.Next) (wire.Marshaler, error) {
			res, err := next.Serve()
			if err == nil {
				g.unsubscribe(ctx, uriOf(r))
			}
			return res, err
		}})
		reg.Route(rt.Route{Role: protocol.RoleListen, Step: func(ctx context.Context, r *rt.Request, next rt.Next) (wire.Marshaler, error) {
			uris := listen.ParseFilter(r.Params()).ResourceSubscriptions
			for i, uri := range uris {
				if err := g.subscribe(ctx, uri); err != nil {
					for _, u := range uris[:i] {
						g.unsubscribe(ctx, u)
					}
					return nil, err
				}
			}
			defer func() {
				for _, uri := range uris {
					g.unsubscribe(ctx, uri)
				}
			}()
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
