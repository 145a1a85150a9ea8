// Package cache is a client's cache of the results of the requests the
// protocol marks cacheable: Client is the mcp.CallCache to set as
// mcp.ClientOptions.Cache, keeping results in a Store; Memory is a
// bounded Store in memory that one process's sessions share.
package cache

import (
	"container/list"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Key names one cached result.
type Key struct {
	// Partition is the authorization context of a private entry; empty for
	// a public one.
	Partition string
	// Version is the protocol version the result was given in.
	Version string
	// Method and Params identify the request; Params are its params as the
	// caller encoded them (without the _meta the session adds).
	Method, Params string
}

// Store stores cached results. Implementations must be safe for
// concurrent use; NewMemory is the bounded in-memory one.
type Store interface {
	// Get returns the result stored under k, if it is fresh at now.
	Get(k Key, now time.Time) (wire.Raw, bool)
	// Put stores result (which the cache may keep: the caller does not
	// reuse it) under k until expires.
	Put(k Key, result wire.Raw, expires time.Time)
	// Invalidate removes every entry whose key match accepts.
	Invalidate(match func(Key) bool)
}

// Memory is a Store in memory, bounded by a number of entries
// and a number of result bytes: the least recently used entries make room.
type Memory struct {
	maxEntries, maxBytes int

	mu    sync.Mutex
	bytes int
	lru   *list.List // of *entry, most recently used first
	index map[Key]*list.Element
}

type entry struct {
	key     Key
	result  wire.Raw
	expires time.Time
}

// Default bounds of NewMemory.
const (
	DefaultEntries = 1024
	DefaultBytes   = 16 << 20
)

// NewMemory returns an empty Memory holding at most maxEntries
// entries and maxBytes bytes of results (defaults for values <= 0).
func NewMemory(maxEntries, maxBytes int) *Memory {
	if maxEntries <= 0 {
		maxEntries = DefaultEntries
	}
	if maxBytes <= 0 {
		maxBytes = DefaultBytes
	}
	return &Memory{maxEntries: maxEntries, maxBytes: maxBytes, lru: list.New(), index: map[Key]*list.Element{}}
}

// Get implements Store.
func (c *Memory) Get(k Key, now time.Time) (wire.Raw, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el := c.index[k]
	if el == nil {
		return nil, false
	}
	e := el.Value.(*entry)
	if !now.Before(e.expires) {
		c.removeLocked(el)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.result, true
}

// Put implements Store.
func (c *Memory) Put(k Key, result wire.Raw, expires time.Time) {
	if len(result) > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el := c.index[k]; el != nil {
		c.removeLocked(el)
	}
	c.index[k] = c.lru.PushFront(&entry{key: k, result: result, expires: expires})
	c.bytes += len(result)
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		c.removeLocked(c.lru.Back())
	}
}

// Invalidate implements Store.
func (c *Memory) Invalidate(match func(Key) bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if match(el.Value.(*entry).key) {
			c.removeLocked(el)
		}
		el = next
	}
}

// Len reports the number of entries.
func (c *Memory) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *Memory) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*entry)
	delete(c.index, e.key)
	c.bytes -= len(e.result)
}
