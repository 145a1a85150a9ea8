package redis

import (
	"context"
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
type ResumeStore struct {
	c goredis.UniversalClient
	o Options
}

var _ resume.Store = (*ResumeStore)(nil)

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
