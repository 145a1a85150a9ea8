package mcp

import (
	"context"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cache"
	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The client response cache (the store is package cache). Results of the
// methods a revision marks
// cacheable (their results carry ttlMs and cacheScope: server/discover, the
// list methods, resources/read in 2026-07-28) are kept for ttlMs and
// answered from the cache while fresh. An absent or negative ttlMs, zero
// ("immediately stale"), a result asking for input (input_required) and the
// retries of a multi round-trip request (params with inputResponses or
// requestState) are never stored. A "private" result is stored under the
// session's authorization context (ClientOptions.CachePartition) and found
// only by sessions of the same context; a "public" one is shared by all.
// A list_changed notification drops the entries of its list methods, and
// notifications/resources/updated the reads of its uri.

// rawResult keeps the bytes of a result while decoding it into out.
type rawResult struct {
	out wire.Unmarshaler
	raw wire.Raw
}

// DecodeJSON implements wire.Unmarshaler.
func (r *rawResult) DecodeJSON(d *wire.Decoder) error {
	raw, err := d.Raw()
	if err != nil {
		return err
	}
	r.raw = append(wire.Raw(nil), raw...)
	return wire.Unmarshal(r.raw, r.out)
}

// cacheable reports whether method's results may be cached in this
// session.
func (cs *ClientSession) cacheable(method string) bool {
	if cs.opts.Cache == nil || cs.mount == nil {
		return false
	}
	m := cs.mount.Protocol.Methods[method]
	return m != nil && m.Cacheable
}

// cachedCall answers a call of a cacheable method from the cache, or makes
// it and stores its result.
func (cs *ClientSession) cachedCall(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	var p wire.Raw
	if params != nil {
		b, err := wire.Marshal(params)
		if err != nil {
			return err
		}
		p = b
	}
	if _, ok := wire.MemberOf(p, "inputResponses"); ok {
		return cs.call(ctx, method, params, result) // a multi round-trip retry
	}
	if _, ok := wire.MemberOf(p, "requestState"); ok {
		return cs.call(ctx, method, params, result)
	}
	part := cs.partition(ctx)
	private := cache.Key{Partition: part, Version: cs.version, Method: method, Params: string(p)}
	public := private
	public.Partition = ""
	now := time.Now()
	if raw, ok := cs.opts.Cache.Get(private, now); ok && part != "" {
		return wire.Unmarshal(raw, result)
	}
	if raw, ok := cs.opts.Cache.Get(public, now); ok {
		return wire.Unmarshal(raw, result)
	}
	rr := &rawResult{out: result}
	if err := cs.call(ctx, method, params, rr); err != nil {
		return err
	}
	ttl, scope, ok := cacheFields(rr.raw)
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
	cs.opts.Cache.Put(k, rr.raw, now.Add(time.Duration(ttl)*time.Millisecond))
	return nil
}

// partition is the authorization context of the call.
func (cs *ClientSession) partition(ctx context.Context) string {
	if cs.opts.CachePartition == nil {
		return ""
	}
	return cs.opts.CachePartition(ctx)
}

// cacheFields reads ttlMs and cacheScope of a result; ok is false for a
// result that must not be cached (no ttlMs, or asking for input).
func cacheFields(result wire.Raw) (ttl int64, scope string, ok bool) {
	if rt, found := wire.MemberOf(result, "resultType"); found {
		var s string
		if wire.Unmarshal(rt, (*wireString)(&s)) != nil || s != "complete" {
			return 0, "", false
		}
	}
	t, found := wire.MemberOf(result, "ttlMs")
	if !found {
		return 0, "", false
	}
	d := wire.NewDecoder(t)
	f, err := d.Float64()
	if err != nil || f < 0 {
		return 0, "", false
	}
	if sc, found := wire.MemberOf(result, "cacheScope"); found {
		_ = wire.Unmarshal(sc, (*wireString)(&scope))
	}
	return int64(f), scope, true
}

// stales gives, for a notification's role, the roles of the requests
// whose cached results it makes stale.
var stales = map[protocol.Role][]protocol.Role{
	protocol.RoleToolsListChanged:     {protocol.RoleToolsList},
	protocol.RolePromptsListChanged:   {protocol.RolePromptsList},
	protocol.RoleResourcesListChanged: {protocol.RoleResourcesList, protocol.RoleResourceTemplatesList},
	protocol.RoleResourceUpdated:      {protocol.RoleResourcesRead},
}

// invalidate drops the cached results a notification makes stale: a
// list_changed notification those of its list methods, and
// resources/updated the reads of its uri.
func (cs *ClientSession) invalidate(method string, params wire.Raw) {
	if cs.opts.Cache == nil || cs.mount == nil {
		return
	}
	role := cs.roles[method]
	targets := stales[role]
	if len(targets) == 0 {
		return
	}
	names := make(map[string]bool, len(targets))
	for _, r := range targets {
		if n := cs.mount.Protocol.RoleName(r); n != "" {
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
	cs.opts.Cache.Invalidate(func(k cache.Key) bool {
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
