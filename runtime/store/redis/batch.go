package redis

import (
	"context"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// batcher sends the commands of concurrent calls together (group commit):
// a call made while no pipeline is out goes at once, alone; the calls
// made while one is out wait for it to come back and then go together,
// one pipeline, one round trip. Under load a round trip then carries the
// commands of many requests (Redis and both kernels see one read and one
// write for all of them); a call alone pays nothing more. No goroutine
// lives between calls: the caller that finds none out sends, and hands
// what queued meanwhile to a goroutine that lasts until the queue is
// empty.
type batcher struct {
	c goredis.UniversalClient

	mu    sync.Mutex
	queue []*batchOp
	busy  bool // a pipeline is out
}

// batchOp is one call's commands.
type batchOp struct {
	// add queues the call's commands on p; the call reads their results
	// once done is closed.
	add  func(p goredis.Pipeliner)
	ctx  context.Context
	done chan struct{}
}

// maxBatch bounds the calls of one pipeline: a long queue goes in several
// round trips rather than one unbounded write.
const maxBatch = 128

// do runs add's commands in a pipeline shared with the calls queued at
// the same time and returns when their results are in (or ctx ends: the
// commands may still run). Errors are the commands' own (Cmd.Err).
func (b *batcher) do(ctx context.Context, add func(p goredis.Pipeliner)) error {
	op := &batchOp{add: add, ctx: ctx, done: make(chan struct{})}
	b.mu.Lock()
	b.queue = append(b.queue, op)
	if b.busy {
		b.mu.Unlock()
		select {
		case <-op.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	b.busy = true
	b.mu.Unlock()
	b.flushOnce()
	b.handOff()
	<-op.done // sent by flushOnce, as the queue's first
	return nil
}

// flushOnce sends up to maxBatch queued calls in one pipeline.
func (b *batcher) flushOnce() {
	b.mu.Lock()
	n := min(len(b.queue), maxBatch)
	ops := make([]*batchOp, n)
	copy(ops, b.queue)
	b.queue = append(b.queue[:0], b.queue[n:]...)
	b.mu.Unlock()
	if len(ops) == 0 {
		return
	}
	// The first call's context carries its values (tracing) but not its
	// cancellation: the others' commands go out all the same; the
	// client's timeouts bound the round trip.
	ctx := context.WithoutCancel(ops[0].ctx)
	p := b.c.Pipeline()
	for _, op := range ops {
		op.add(p)
	}
	_, _ = p.Exec(ctx) // each command keeps its own error
	for _, op := range ops {
		close(op.done)
	}
}

// handOff leaves what queued meanwhile to a goroutine that flushes until
// the queue is empty; with nothing queued, the batcher is idle.
func (b *batcher) handOff() {
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.busy = false
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	go func() {
		for {
			b.flushOnce()
			b.mu.Lock()
			if len(b.queue) == 0 {
				b.busy = false
				b.mu.Unlock()
				return
			}
			b.mu.Unlock()
		}
	}()
}
