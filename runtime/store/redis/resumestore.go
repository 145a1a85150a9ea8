package redis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/resume"
)

// ResumeStore is a resume.Store in Redis: states and completions are keys
// that expire with the tokens they serve. Instances sharing it (and a key
// ring) continue each other's operations and refuse the tokens of
// operations any of them completed.
//
// It is a resume.Reserver too: each owner (resume.Owner: the principal,
// else the client's address) may have at most Options.ResumePerOwner
// operations whose tokens live, counted in a sorted set of its own, so
// that one client cannot fill Redis's memory; one more is refused with
// resume.ErrOwnerFull while other owners are served.
type ResumeStore struct {
	c goredis.UniversalClient
	o Options
}

var (
	_ resume.Store    = (*ResumeStore)(nil)
	_ resume.Reserver = (*ResumeStore)(nil)
)

// reserveScript keeps operation ARGV[1] in owner KEYS[1]'s sorted set
// until ARGV[2] (Unix ms), unless the owner holds ARGV[4] operations
// unexpired at ARGV[3] already (0 then); the set expires with its last
// operation.
var reserveScript = goredis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[2])
else
  redis.call('PEXPIREAT', KEYS[1], ARGV[2], 'GT')
end
return 1
`)

// Reserve implements resume.Reserver: it counts op for the owner of ctx
// (resume.Owner) until expires; the owner "" (stdio's one client) is not
// counted.
func (s *ResumeStore) Reserve(ctx context.Context, op string, expires time.Time) error {
	owner := resume.Owner(ctx)
	if owner == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(owner))
	key := s.o.prefix() + "resume:owner:" + hex.EncodeToString(sum[:16])
	ok, err := reserveScript.Run(ctx, s.c, []string{key}, op, expires.UnixMilli(), time.Now().UnixMilli(), s.o.resumePerOwner()).Int()
	if err != nil {
		return fmt.Errorf("redis resume store: %w", err)
	}
	if ok == 0 {
		return resume.ErrOwnerFull
	}
	return nil
}

// NewResumeStore returns a ResumeStore on c.
func NewResumeStore(c goredis.UniversalClient, o Options) *ResumeStore {
	return &ResumeStore{c: c, o: o}
}

// PutState implements resume.Store.
func (s *ResumeStore) PutState(ctx context.Context, key string, state []byte, expires time.Time) error {
	return s.set(ctx, s.o.prefix()+"resume:state:"+key, state, expires)
}

// State implements resume.Store.
func (s *ResumeStore) State(ctx context.Context, key string) ([]byte, bool, error) {
	b, err := s.c.Get(ctx, s.o.prefix()+"resume:state:"+key).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("redis resume store: %w", err)
	}
	return b, true, nil
}

// Complete implements resume.Store.
func (s *ResumeStore) Complete(ctx context.Context, op string, expires time.Time) error {
	return s.set(ctx, s.o.prefix()+"resume:done:"+op, "1", expires)
}

// Completed implements resume.Store.
func (s *ResumeStore) Completed(ctx context.Context, op string) (bool, error) {
	n, err := s.c.Exists(ctx, s.o.prefix()+"resume:done:"+op).Result()
	if err != nil {
		return false, fmt.Errorf("redis resume store: %w", err)
	}
	return n > 0, nil
}

// set stores v under key until expires (nothing when that has passed).
func (s *ResumeStore) set(ctx context.Context, key string, v any, expires time.Time) error {
	d := time.Until(expires)
	if d <= 0 {
		return nil
	}
	if err := s.c.Set(ctx, key, v, d).Err(); err != nil {
		return fmt.Errorf("redis resume store: %w", err)
	}
	return nil
}
