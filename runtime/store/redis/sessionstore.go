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
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("redis session store: %w", err)
	}
	if err := s.c.Set(ctx, s.key(id), b, ttl).Err(); err != nil {
		return fmt.Errorf("redis session store: %w", err)
	}
	return nil
}

// Load implements streamhttp.SessionStore.
func (s *SessionStore) Load(ctx context.Context, id string) (mcp.SessionState, bool, error) {
	var st mcp.SessionState
	b, err := s.c.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return st, false, nil
	}
	if err != nil {
		return st, false, fmt.Errorf("redis session store: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, false, fmt.Errorf("redis session store: session %s: %w", id, err)
	}
	return st, true, nil
}

// Delete implements streamhttp.SessionStore.
func (s *SessionStore) Delete(ctx context.Context, id string) error {
	if err := s.c.Del(ctx, s.key(id)).Err(); err != nil {
		return fmt.Errorf("redis session store: %w", err)
	}
	return nil
}
