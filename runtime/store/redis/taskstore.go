package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/mcp"
)

// TaskStore is an mcp.TaskStore in Redis: one key per task holding its
// record as JSON, expiring with the task.
type TaskStore struct {
	c goredis.UniversalClient
	o Options
}

var _ mcp.TaskStore = (*TaskStore)(nil)

// NewTaskStore returns a TaskStore on c.
func NewTaskStore(c goredis.UniversalClient, o Options) *TaskStore { return &TaskStore{c: c, o: o} }

func (s *TaskStore) key(id string) string { return s.o.prefix() + "task:" + id }

// Save implements mcp.TaskStore.
func (s *TaskStore) Save(ctx context.Context, rec mcp.TaskRecord) error {
	d := time.Until(rec.Expires())
	if d <= 0 {
		return nil
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redis task store: %w", err)
	}
	if err := s.c.Set(ctx, s.key(rec.ID), b, d).Err(); err != nil {
		return fmt.Errorf("redis task store: %w", err)
	}
	return nil
}

// Load implements mcp.TaskStore.
func (s *TaskStore) Load(ctx context.Context, id string) (mcp.TaskRecord, bool, error) {
	var rec mcp.TaskRecord
	b, err := s.c.Get(ctx, s.key(id)).Bytes()
	if errors.Is(err, goredis.Nil) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, fmt.Errorf("redis task store: %w", err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, false, fmt.Errorf("redis task store: task %s: %w", id, err)
	}
	return rec, true, nil
}
