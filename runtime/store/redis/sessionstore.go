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
// (under the session's hash tag) holding its state as JSON, expiring with
// the session's idle timeout (refreshed while it is used), replaced by a
// tombstone for an hour when the client ends it. Instances sharing it
// serve each other's stateful sessions. Run Redis with persistence
// (appendonly yes): the sessions no instance holds are lost when a
// Redis without it restarts.
type SessionStore struct {
	c goredis.UniversalClient
	o Options
}

var _ streamhttp.SessionStore = (*SessionStore)(nil)

// NewSessionStore returns a SessionStore on c.
func NewSessionStore(c goredis.UniversalClient, o Options) *SessionStore {
	return &SessionStore{c: c, o: o}
}

func (s *SessionStore) key(id string) string { return sessionKey(s.o, id) }

// sessionKey is the key of session id's entry in a SessionStore with
// Options o.
func sessionKey(o Options, id string) string { return o.prefix() + "session:{" + id + "}" }

// tombstone is the value of an ended session's key.
const tombstone = "ended"

// saveUnlessEnded sets KEYS[1] to ARGV[1] for ARGV[2] milliseconds unless
// it holds the tombstone.
var saveUnlessEnded = goredis.NewScript(`
if redis.call('GET', KEYS[1]) == '` + tombstone + `' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`)

// Save implements streamhttp.SessionStore.
func (s *SessionStore) Save(ctx context.Context, id string, st mcp.SessionState, ttl time.Duration) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("redis session store: %w", err)
	}
	if err := saveUnlessEnded.Run(ctx, s.c, []string{s.key(id)}, b, max(ttl.Milliseconds(), 1)).Err(); err != nil {
		return fmt.Errorf("redis session store: %w", err)
	}
	return nil
}

// Load implements streamhttp.SessionStore.
func (s *SessionStore) Load(ctx context.Context, id string) (mcp.SessionState, bool, error) {
	b, err := s.c.Get(ctx, s.key(id)).Bytes()
	switch {
	case errors.Is(err, goredis.Nil):
		return mcp.SessionState{}, false, nil
	case err != nil:
		return mcp.SessionState{}, false, fmt.Errorf("redis session store: %w", err)
	case string(b) == tombstone:
		return mcp.SessionState{}, false, streamhttp.ErrSessionEnded
	}
	var st mcp.SessionState
	if err := json.Unmarshal(b, &st); err != nil {
		return st, false, fmt.Errorf("redis session store: %s: %w", s.key(id), err)
	}
	return st, true, nil
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
	if err := s.c.Set(ctx, s.key(id), tombstone, max(s.o.ttl(), time.Hour)).Err(); err != nil {
		return fmt.Errorf("redis session store: %w", err)
	}
	return nil
}
