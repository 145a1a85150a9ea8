package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// SessionStore is a streamhttp.SessionStore in Redis: one key per session
// holding its state as JSON, expiring with the session's idle timeout
// (refreshed while it is used), deleted when the client ends it. Instances
// sharing it serve each other's stateful sessions.
type SessionStore struct {
	c goredis.UniversalClient
	o Options
}

var _ streamhttp.SessionStore = (*SessionStore)(nil)

// NewSessionStore returns a SessionStore on c.
func NewSessionStore(c goredis.UniversalClient, o Options) *SessionStore {
	return &SessionStore{c: c, o: o}
}

func (s *SessionStore) key(id string) string { return s.o.prefix() + "session:" + id }

// Save implements streamhttp.SessionStore.
func (s *SessionStore) Save(ctx context.Context, id string, st mcp.SessionState, ttl time.Duration) error {
	return setJSON(ctx, s.c, s.key(id), st, ttl, "redis session store")
}

// Load implements streamhttp.SessionStore.
func (s *SessionStore) Load(ctx context.Context, id string) (mcp.SessionState, bool, error) {
	return getJSON[mcp.SessionState](ctx, s.c, s.key(id), "redis session store")
}

// setJSON stores v as JSON under key for ttl; what names the store in
// errors.
func setJSON(ctx context.Context, c goredis.UniversalClient, key string, v any, ttl time.Duration, what string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := c.Set(ctx, key, b, ttl).Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// getJSON loads the JSON under key; ok is false when there is none.
func getJSON[T any](ctx context.Context, c goredis.UniversalClient, key, what string) (v T, ok bool, err error) {
	b, err := c.Get(ctx, key).Bytes()
	if errors.Is(err, goredis.Nil) {
		return v, false, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("%s: %w", what, err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, false, fmt.Errorf("%s: %s: %w", what, key, err)
	}
	return v, true, nil
}

// Delete implements streamhttp.SessionStore.
func (s *SessionStore) Delete(ctx context.Context, id string) error {
	if err := s.c.Del(ctx, s.key(id)).Err(); err != nil {
		return fmt.Errorf("redis session store: %w", err)
	}
	return nil
}
