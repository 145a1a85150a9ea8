package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// RequestLedger is a streamhttp.RequestLedger in Redis: one key per
// request holding its record as JSON, and a set per stream naming its
// requests, all under the session's hash tag (one Cluster slot per
// session). Instances sharing it run a request sent again at most once,
// and end a stream resumed away from its instance with its responses.
type RequestLedger struct {
	c goredis.UniversalClient
	o Options
}

var _ streamhttp.RequestLedger = (*RequestLedger)(nil)

// NewRequestLedger returns a RequestLedger on c.
func NewRequestLedger(c goredis.UniversalClient, o Options) *RequestLedger {
	return &RequestLedger{c: c, o: o}
}

func (l *RequestLedger) key(session, id string) string {
	return l.o.prefix() + "req:{" + session + "}:" + id
}

func (l *RequestLedger) streamKey(session, stream string) string {
	return l.o.prefix() + "reqs:{" + session + "}:" + stream
}

// Begin implements streamhttp.RequestLedger.
func (l *RequestLedger) Begin(ctx context.Context, session, id string, rec streamhttp.RequestRecord, ttl time.Duration) (streamhttp.RequestRecord, bool, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return streamhttp.RequestRecord{}, false, fmt.Errorf("redis request ledger: %w", err)
	}
	key, idx := l.key(session, id), l.streamKey(session, rec.Stream)
	var set *goredis.BoolCmd
	_, err = l.c.TxPipelined(ctx, func(p goredis.Pipeliner) error {
		set = p.SetNX(ctx, key, b, ttl)
		p.SAdd(ctx, idx, id)
		p.PExpire(ctx, idx, ttl)
		return nil
	})
	if err != nil {
		return streamhttp.RequestRecord{}, false, fmt.Errorf("redis request ledger: %w", err)
	}
	if set.Val() {
		return streamhttp.RequestRecord{}, true, nil
	}
	prior, ok, err := getJSON[streamhttp.RequestRecord](ctx, l.c, key, "redis request ledger")
	if err != nil || !ok {
		// Gone between the two calls (expired): begin again.
		if err == nil {
			return l.Begin(ctx, session, id, rec, ttl)
		}
		return streamhttp.RequestRecord{}, false, err
	}
	return prior, false, nil
}

// Update implements streamhttp.RequestLedger.
func (l *RequestLedger) Update(ctx context.Context, session, id string, rec streamhttp.RequestRecord, ttl time.Duration) error {
	return setJSON(ctx, l.c, l.key(session, id), rec, ttl, "redis request ledger")
}

// Stream implements streamhttp.RequestLedger.
func (l *RequestLedger) Stream(ctx context.Context, session, stream string) (map[string]streamhttp.RequestRecord, error) {
	ids, err := l.c.SMembers(ctx, l.streamKey(session, stream)).Result()
	if err != nil {
		return nil, fmt.Errorf("redis request ledger: %w", err)
	}
	out := map[string]streamhttp.RequestRecord{}
	if len(ids) == 0 {
		return out, nil
	}
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = l.key(session, id)
	}
	vals, err := l.c.MGet(ctx, keys...).Result()
	if err != nil && !errors.Is(err, goredis.Nil) {
		return nil, fmt.Errorf("redis request ledger: %w", err)
	}
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue
		}
		var rec streamhttp.RequestRecord
		if json.Unmarshal([]byte(s), &rec) == nil && rec.Stream == stream {
			out[ids[i]] = rec
		}
	}
	return out, nil
}
