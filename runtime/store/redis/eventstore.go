package redis

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// EventStore is a streamhttp.EventStore in Redis: each SSE stream is a
// Redis stream (XADD, trimmed to about Options.PerStream entries), and a
// set per session names its streams for Forget. Event ids are
// "<stream>_<entry id>". Instances sharing the Redis server see each
// other's events.
type EventStore struct {
	c goredis.UniversalClient
	o Options
}

var _ streamhttp.EventStore = (*EventStore)(nil)

// NewEventStore returns an EventStore on c.
func NewEventStore(c goredis.UniversalClient, o Options) *EventStore {
	return &EventStore{c: c, o: o}
}

// streamKey and indexKey are the keys of a session's stream and of the
// set of its streams; the {session} hash tag keeps them in one slot.
func (s *EventStore) streamKey(session, stream string) string {
	return s.o.prefix() + "ev:{" + session + "}:" + stream
}

func (s *EventStore) indexKey(session string) string {
	return s.o.prefix() + "ev:{" + session + "}"
}

// Append implements streamhttp.EventStore.
func (s *EventStore) Append(ctx context.Context, session, stream string, data []byte) (string, error) {
	key, idx := s.streamKey(session, stream), s.indexKey(session)
	var add *goredis.StringCmd
	_, err := s.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		add = p.XAdd(ctx, &goredis.XAddArgs{Stream: key, MaxLen: s.o.perStream(), Approx: true, Values: []any{"d", data}})
		p.SAdd(ctx, idx, key)
		p.Expire(ctx, key, s.o.ttl())
		p.Expire(ctx, idx, s.o.ttl())
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("redis event store: appending to %s: %w", key, err)
	}
	return stream + "_" + add.Val(), nil
}

// entryID is a Redis stream entry id, written as Redis writes it (no
// leading zeros, which Redis would read as the same id).
var entryID = regexp.MustCompile(`^(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$`)

// Replay implements streamhttp.EventStore.
func (s *EventStore) Replay(ctx context.Context, session, afterID string) ([]streamhttp.Event, string, error) {
	i := strings.LastIndexByte(afterID, '_')
	if i <= 0 || !entryID.MatchString(afterID[i+1:]) {
		return nil, "", streamhttp.ErrUnknownEvent
	}
	stream, entry := afterID[:i], afterID[i+1:]
	key := s.streamKey(session, stream)
	// The event itself must still be there: otherwise events after it
	// may have been trimmed, and a replay would skip them silently.
	at, err := s.c.XRange(ctx, key, entry, entry).Result()
	if err != nil {
		return nil, "", fmt.Errorf("redis event store: reading %s: %w", key, err)
	}
	if len(at) == 0 {
		return nil, "", streamhttp.ErrUnknownEvent
	}
	msgs, err := s.c.XRange(ctx, key, "("+entry, "+").Result()
	if err != nil {
		return nil, "", fmt.Errorf("redis event store: reading %s: %w", key, err)
	}
	events := make([]streamhttp.Event, 0, len(msgs))
	for _, m := range msgs {
		d, _ := m.Values["d"].(string)
		events = append(events, streamhttp.Event{ID: stream + "_" + m.ID, Data: []byte(d)})
	}
	return events, stream, nil
}

// Forget implements streamhttp.EventStore.
func (s *EventStore) Forget(ctx context.Context, session string) error {
	idx := s.indexKey(session)
	keys, err := s.c.SMembers(ctx, idx).Result()
	if err != nil {
		return fmt.Errorf("redis event store: listing %s: %w", idx, err)
	}
	if err := s.c.Del(ctx, append(keys, idx)...).Err(); err != nil {
		return fmt.Errorf("redis event store: forgetting session %s: %w", session, err)
	}
	return nil
}
