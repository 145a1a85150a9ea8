package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// TaskStore is an tasks.Store in Redis: one key per task holding its
// record as JSON, expiring with the task.
type TaskStore struct {
	c goredis.UniversalClient
	o Options
}

var _ tasks.Store = (*TaskStore)(nil)

// NewTaskStore returns a TaskStore on c.
func NewTaskStore(c goredis.UniversalClient, o Options) *TaskStore { return &TaskStore{c: c, o: o} }

func (s *TaskStore) key(id string) string { return s.o.prefix() + "task:" + id }

// Save implements tasks.Store.
func (s *TaskStore) Save(ctx context.Context, rec tasks.Record) error {
	d := time.Until(rec.Expires())
	if d <= 0 {
		return nil
	}
	return setJSON(ctx, s.c, s.key(rec.ID), rec, d, "redis task store")
}

// Load implements tasks.Store.
func (s *TaskStore) Load(ctx context.Context, id string) (tasks.Record, bool, error) {
	return getJSON[tasks.Record](ctx, s.c, s.key(id), "redis task store")
}
