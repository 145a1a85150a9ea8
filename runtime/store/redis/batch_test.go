package redis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/store/redis/redistest"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// pipelineCounter counts the pipelines a client sends.
type pipelineCounter struct{ n atomic.Int64 }

func (*pipelineCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }
func (*pipelineCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return next
}
func (c *pipelineCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.n.Add(1)
		return next(ctx, cmds)
	}
}

// TestBatcher: concurrent calls each get their own commands' results, in
// fewer pipelines than calls when they overlap (logged, not asserted: how
// many overlap is the scheduler's); a call whose context ends returns,
// and the batcher goes on serving the next.
func TestBatcher(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client()
	var count pipelineCounter
	c.AddHook(&count)
	b := &batcher{c: c}
	ctx := context.Background()
	const calls = 400
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		wg.Go(func() {
			key, val := fmt.Sprintf("batch:%d", i), fmt.Sprintf("v%d", i)
			var set *goredis.StatusCmd
			var get *goredis.StringCmd
			if err := b.do(ctx, func(p goredis.Pipeliner) { set, get = p.Set(ctx, key, val, time.Minute), p.Get(ctx, key) }); err != nil {
				errs <- err
				return
			}
			if set.Err() != nil || get.Val() != val {
				errs <- fmt.Errorf("call %d: SET %v, GET %q", i, set.Err(), get.Val())
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d calls in %d pipelines", calls, count.n.Load())
	if n := count.n.Load(); n > calls || n == 0 {
		t.Errorf("%d pipelines for %d calls", n, calls)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	b.mu.Lock()
	b.busy = true // as if a pipeline were out: the call waits, and its context has ended
	b.mu.Unlock()
	if err := b.do(cctx, func(p goredis.Pipeliner) { p.Ping(cctx) }); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call waiting for its turn: %v", err)
	}
	b.handOff() // the pipeline "came back": the queued call goes
	var get *goredis.StringCmd
	if err := b.do(ctx, func(p goredis.Pipeliner) { get = p.Get(ctx, "batch:7") }); err != nil || get.Val() != "v7" {
		t.Errorf("the next call: %v %q", err, get.Val())
	}
}

// TestBeginInSessionLoadsScript: a Redis that forgot the script (SCRIPT
// FLUSH, as after a restart) still begins requests: the pipelined
// EVALSHA's NOSCRIPT is answered by loading it.
func TestBeginInSessionLoadsScript(t *testing.T) {
	srv := redistest.Start(t)
	c := srv.Client()
	ctx := context.Background()
	l := NewRequestLedger(c, Options{})
	rec := streamhttp.RequestRecord{ID: wire.Raw(`1`), Stream: "p1", Lease: time.Now().Add(time.Minute)}
	for i := range 3 {
		if err := c.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		if _, fresh, _, err := l.BeginInSession(ctx, "s", fmt.Sprint(i), rec, time.Minute); err != nil || !fresh {
			t.Fatalf("begin %d after SCRIPT FLUSH: fresh %v, %v", i, fresh, err)
		}
	}
}
