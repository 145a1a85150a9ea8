package redis

import (
	"context"
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
	return setJSON(ctx, s.c, s.key(rec.ID), rec, d, "redis task store")
}

// Load implements mcp.TaskStore.
func (s *TaskStore) Load(ctx context.Context, id string) (mcp.TaskRecord, bool, error) {
	return getJSON[mcp.TaskRecord](ctx, s.c, s.key(id), "redis task store")
}
