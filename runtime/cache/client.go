package cache

import (
	"context"
	"time"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Options configure a client's cache (Client).
type Options struct {
	// Partition names the authorization context of a call (for example a
	// digest of the access token it is sent with): "private" results are
	// reused only by calls of the same context, "public" ones by all.
	// Without it, private results are not kept.
	Partition func(ctx context.Context) string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Client returns the cache a client keeps in store
// (mcp.ClientOptions.Cache). Results of the methods a revision marks
// cacheable (their results carry ttlMs and cacheScope: server/discover,
// the list methods, resources/read in 2026-07-28) are kept for ttlMs and
// answer the calls repeating them while fresh. An absent or negative
// ttlMs, zero ("immediately stale"), a result asking for input
// (input_required) and the retries of a multi round-trip request (params
// with inputResponses or requestState) are never kept. A "private" result
// is kept under the call's authorization context (Options.Partition) and
// found only by calls of the same context; a "public" one is shared by
// all. A list_changed notification drops the entries of its list methods,
// and notifications/resources/updated the reads of its uri. One cache may
// serve many sessions.
func Client(store Store, o Options) mcp.CallCache {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &client{store: store, o: o}
}

// client is the mcp.CallCache of Client.
type client struct {
	store Store
	o     Options
}

// Call implements mcp.CallCache.
func (c *client) Call(ctx context.Context, cs *mcp.ClientSession, method string, params wire.Marshaler, result wire.Into, send func(context.Context, wire.Into) error) error {
	var p wire.Raw
	if params != nil {
		b, err := wire.Marshal(params)
		if err != nil {
			return err
		}
		p = b
	}
	if _, ok := wire.MemberOf(p, "inputResponses"); ok {
		return send(ctx, result) // a multi round-trip retry
	}
	if _, ok := wire.MemberOf(p, "requestState"); ok {
		return send(ctx, result)
	}
	var part string
	if c.o.Partition != nil {
		part = c.o.Partition(ctx)
	}
	private := Key{Partition: part, Version: cs.ProtocolVersion(), Method: method, Params: string(p)}
	public := private
	public.Partition = ""
	now := c.o.Now()
	if raw, ok := c.store.Get(private, now); ok && part != "" {
		return decodeKept(raw, result)
	}
	if raw, ok := c.store.Get(public, now); ok {
		return decodeKept(raw, result)
	}
	rr := &rawResult{out: result}
	if err := send(ctx, wire.Into{Value: result.Value, Decode: rr.decode}); err != nil {
		return err
	}
	ttl, scope, ok := Fields(rr.raw)
	if !ok || ttl <= 0 {
		return nil
	}
	k := public
	if scope != "public" {
		if part == "" {
			// A private result without an authorization context to keep
			// it in is not kept: it could reach another context.
			return nil
		}
		k = private
	}
	c.store.Put(k, rr.raw, now.Add(time.Duration(ttl)*time.Millisecond))
	return nil
}

// decodeKept decodes a kept result into out (the zero Into: checks that
// it is one JSON value).
func decodeKept(raw wire.Raw, out wire.Into) error {
	if out.Decode == nil {
		return wire.CheckJSON(raw)
	}
	return wire.UnmarshalWith(raw, out.Decode)
}

// rawResult keeps the bytes of a result while decoding it into out.
type rawResult struct {
	out wire.Into
	raw wire.Raw
}

// decode keeps the result's bytes, then decodes them into r.out.
func (r *rawResult) decode(d *wire.Decoder) error {
	v, err := d.Raw()
	if err != nil {
		return err
	}
	r.raw = append(wire.Raw(nil), v...)
	if r.out.Decode == nil {
		return nil
	}
	return wire.UnmarshalWith(r.raw, r.out.Decode)
}

// Fields reads ttlMs and cacheScope of a result; ok is false for a result
// that must not be kept (no ttlMs, or one asking for input).
func Fields(result wire.Raw) (ttl int64, scope string, ok bool) {
	if rt, found := wire.MemberOf(result, "resultType"); found {
		s, err := wire.NewDecoder(rt).Str()
		if err != nil || s != "complete" {
			return 0, "", false
		}
	}
	t, found := wire.MemberOf(result, "ttlMs")
	if !found {
		return 0, "", false
	}
	f, err := wire.NewDecoder(t).Float64()
	if err != nil || f < 0 {
		return 0, "", false
	}
	if sc, found := wire.MemberOf(result, "cacheScope"); found {
		scope, _ = wire.NewDecoder(sc).Str()
	}
	return int64(f), scope, true
}

// stales gives, for a notification's role, the roles of the requests
// whose kept results it makes stale.
var stales = map[protocol.Role][]protocol.Role{
	protocol.RoleToolsListChanged:     {protocol.RoleToolsList},
	protocol.RolePromptsListChanged:   {protocol.RolePromptsList},
	protocol.RoleResourcesListChanged: {protocol.RoleResourcesList, protocol.RoleResourceTemplatesList},
	protocol.RoleResourceUpdated:      {protocol.RoleResourcesRead},
}

// Notified implements mcp.CallCache: a list_changed notification drops
// the results of its list methods, and resources/updated the reads of its
// uri.
func (c *client) Notified(cs *mcp.ClientSession, method string, params wire.Raw) {
	invalidate(c.store, cs.Protocol(), method, params)
}

// invalidate drops from store the results of revision p that a
// notification makes stale.
func invalidate(store Store, p *protocol.Protocol, method string, params wire.Raw) {
	if p == nil || p.Methods[method] == nil {
		return
	}
	role := p.Methods[method].Role
	targets := stales[role]
	if len(targets) == 0 {
		return
	}
	names := make(map[string]bool, len(targets))
	for _, r := range targets {
		if n := p.RoleName(r); n != "" {
			names[n] = true
		}
	}
	var uri wire.Raw
	if role == protocol.RoleResourceUpdated {
		var ok bool
		if uri, ok = wire.MemberOf(params, "uri"); !ok {
			return
		}
	}
	store.Invalidate(func(k Key) bool {
		if !names[k.Method] {
			return false
		}
		if uri == nil {
			return true
		}
		u, ok := wire.MemberOf(wire.Raw(k.Params), "uri")
		return ok && string(u) == string(uri)
	})
}
