package mcp

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The client response cache. Results of the methods a revision marks
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

// CacheKey names one cached result.
type CacheKey struct {
	// Partition is the authorization context of a private entry; empty for
	// a public one.
	Partition string
	// Version is the protocol version the result was given in.
	Version string
	// Method and Params identify the request; Params are its params as the
	// caller encoded them (without the _meta the session adds).
	Method, Params string
}

// ResponseCache stores cached results. Implementations must be safe for
// concurrent use; NewMemoryCache is the bounded in-memory one.
type ResponseCache interface {
	// Get returns the result stored under k, if it is fresh at now.
	Get(k CacheKey, now time.Time) (wire.Raw, bool)
	// Put stores result (which the cache may keep: the caller does not
	// reuse it) under k until expires.
	Put(k CacheKey, result wire.Raw, expires time.Time)
	// Invalidate removes every entry whose key match accepts.
	Invalidate(match func(CacheKey) bool)
}

// MemoryCache is a ResponseCache in memory, bounded by a number of entries
// and a number of result bytes: the least recently used entries make room.
type MemoryCache struct {
	maxEntries, maxBytes int

	mu    sync.Mutex
	bytes int
	lru   *list.List // of *cacheEntry, most recently used first
	index map[CacheKey]*list.Element
}

type cacheEntry struct {
	key     CacheKey
	result  wire.Raw
	expires time.Time
}

// Default bounds of NewMemoryCache.
const (
	DefaultCacheEntries = 1024
	DefaultCacheBytes   = 16 << 20
)

// NewMemoryCache returns an empty MemoryCache holding at most maxEntries
// entries and maxBytes bytes of results (defaults for values <= 0).
func NewMemoryCache(maxEntries, maxBytes int) *MemoryCache {
	if maxEntries <= 0 {
		maxEntries = DefaultCacheEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	return &MemoryCache{maxEntries: maxEntries, maxBytes: maxBytes, lru: list.New(), index: map[CacheKey]*list.Element{}}
}

// Get implements ResponseCache.
func (c *MemoryCache) Get(k CacheKey, now time.Time) (wire.Raw, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.index[k]
	if el == nil {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !now.Before(e.expires) {
		c.removeLocked(el)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.result, true
}

// Put implements ResponseCache.
func (c *MemoryCache) Put(k CacheKey, result wire.Raw, expires time.Time) {
	if len(result) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.index[k]; el != nil {
		c.removeLocked(el)
	}
	c.index[k] = c.lru.PushFront(&cacheEntry{key: k, result: result, expires: expires})
	c.bytes += len(result)
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.removeLocked(c.lru.Back())
	}
}

// Invalidate implements ResponseCache.
func (c *MemoryCache) Invalidate(match func(CacheKey) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if match(el.Value.(*cacheEntry).key) {
			c.removeLocked(el)
		}
		el = next
	}
}

// Len reports the number of entries.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *MemoryCache) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.index, e.key)
	c.bytes -= len(e.result)
}

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
	private := CacheKey{Partition: part, Version: cs.version, Method: method, Params: string(p)}
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

// wireString decodes a JSON string.
type wireString string

// DecodeJSON implements wire.Unmarshaler.
func (s *wireString) DecodeJSON(d *wire.Decoder) error {
	v, err := d.Str()
	*s = wireString(v)
	return err
}

// stales gives, for a notification's role, the roles of the requests
// whose cached results it makes stale.
var stales = map[Role][]Role{
	RoleToolsListChanged:     {RoleToolsList},
	RolePromptsListChanged:   {RolePromptsList},
	RoleResourcesListChanged: {RoleResourcesList, RoleResourceTemplatesList},
	RoleResourceUpdated:      {RoleResourcesRead},
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
	if role == RoleResourceUpdated {
		var ok bool
		if uri, ok = wire.MemberOf(params, "uri"); !ok {
			return
		}
	}
	cs.opts.Cache.Invalidate(func(k CacheKey) bool {
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
