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
//
// BeginInSession and Update, the two calls of every request, share
// pipelines with the concurrent requests' (group commit): under load a
// round trip to Redis carries many requests' commands.
type RequestLedger struct {
	c goredis.UniversalClient
	o Options
	b *batcher
}

var _ streamhttp.SessionLedger = (*RequestLedger)(nil)

// NewRequestLedger returns a RequestLedger on c. Give it the Options of
// the deployment's SessionStore (the same Prefix): it reads the sessions
// there (BeginInSession).
func NewRequestLedger(c goredis.UniversalClient, o Options) *RequestLedger {
	return &RequestLedger{c: c, o: o, b: &batcher{c: c}}
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

// beginInSession is BeginInSession's script. KEYS: the session's entry in
// the SessionStore, the request's record, its stream's set of requests;
// ARGV: the record, its time to live in milliseconds, the request's id,
// the tombstone. It returns {0} for a session ended (nothing recorded),
// else {stored, 1} when it recorded the request and {stored, 0, prior}
// when the request had a record; stored is 1 when the session has an
// entry, else 0.
var beginInSession = goredis.NewScript(`
local n = redis.call('STRLEN', KEYS[1])
if n == string.len(ARGV[4]) and redis.call('GET', KEYS[1]) == ARGV[4] then return {0} end
local stored = 0
if n > 0 then stored = 1 end
if redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX') then
	redis.call('SADD', KEYS[3], ARGV[3])
	redis.call('PEXPIRE', KEYS[3], ARGV[2])
	return {stored, 1}
end
return {stored, 0, redis.call('GET', KEYS[2])}`)

// BeginInSession implements streamhttp.SessionLedger: Begin and the look
// at the session's entry in the SessionStore are one script, one round
// trip (all three keys carry the session's hash tag: one Cluster slot).
func (l *RequestLedger) BeginInSession(ctx context.Context, session, id string, rec streamhttp.RequestRecord, ttl time.Duration) (prior streamhttp.RequestRecord, fresh, stored bool, err error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return prior, false, false, fmt.Errorf("redis request ledger: %w", err)
	}
	keys := []string{sessionKey(l.o, session), l.key(session, id), l.streamKey(session, rec.Stream)}
	args := []any{b, max(ttl.Milliseconds(), 1), id, tombstone}
	var cmd *goredis.Cmd
	if err := l.b.do(ctx, func(p goredis.Pipeliner) { cmd = beginInSession.EvalSha(ctx, p, keys, args...) }); err != nil {
		return prior, false, false, fmt.Errorf("redis request ledger: %w", err)
	}
	if goredis.HasErrorPrefix(cmd.Err(), "NOSCRIPT") {
		// Not loaded yet (or Redis restarted): once more alone, loading it.
		cmd = beginInSession.Run(ctx, l.c, keys, args...)
	}
	v, err := cmd.Slice()
	if err != nil {
		return prior, false, false, fmt.Errorf("redis request ledger: %w", err)
	}
	if len(v) < 2 {
		return prior, false, false, streamhttp.ErrSessionEnded
	}
	stored = v[0] == int64(1)
	if v[1] == int64(1) {
		return prior, true, stored, nil
	}
	var s string
	if len(v) > 2 {
		s, _ = v[2].(string)
	}
	if err := json.Unmarshal([]byte(s), &prior); err != nil {
		return prior, false, stored, fmt.Errorf("redis request ledger: %s: %w", keys[1], err)
	}
	return prior, false, stored, nil
}

// Update implements streamhttp.RequestLedger.
func (l *RequestLedger) Update(ctx context.Context, session, id string, rec streamhttp.RequestRecord, ttl time.Duration) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redis request ledger: %w", err)
	}
	var cmd *goredis.StatusCmd
	if err := l.b.do(ctx, func(p goredis.Pipeliner) { cmd = p.Set(ctx, l.key(session, id), b, ttl) }); err != nil {
		return fmt.Errorf("redis request ledger: %w", err)
	}
	if err := cmd.Err(); err != nil {
		return fmt.Errorf("redis request ledger: %w", err)
	}
	return nil
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
