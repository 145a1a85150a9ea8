// Package lazyctx provides the context of one request's handler that costs
// nothing beyond its own memory until something asks for more: its Done
// channel is made on first use, and its parent's cancellation is watched
// only from then on.
//
// context.WithCancel of a request's context allocates the child and, when
// the parent is cancelable (net/http's request contexts are), the parent's
// table of children, and takes the parent's lock twice: about 400 bytes and
// three allocations per request behind a real server, for a cancellation
// that most handlers never look at. A Ctx embedded in the request's own
// record costs none of that until a handler (or a context derived from
// it) asks for Done.
package lazyctx

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Ctx is a cancelable context. Embed it in the record of a request and
// Init it; its zero value is not usable. Cancel ends it; when it watches its
// parent, the parent's end ends it too.
//
// It implements the AfterFunc method the context package looks for, so
// contexts derived from it (context.WithCancel, context.AfterFunc, ...)
// follow its end without a goroutine each.
//
// The parent's end reaches a watching Ctx as it reaches any context that
// is not the context package's own: through context.AfterFunc, on a
// goroutine. Err reports it at once; Done closes a moment later.
type Ctx struct {
	parent   context.Context
	deadline time.Time   // zero: the parent's
	watch    bool        // the parent's end ends it
	ended    atomic.Bool // Cancel ran: Value answers through rare.gone

	mu   sync.Mutex
	done chan struct{} // made on first Done, or closedChan
	err  error
	rare *rare // what few requests need, made when one does
}

// rare is what a Ctx keeps only when asked: the functions of AfterFunc
// (contexts derived from it), the watch of its parent, a cause other than
// its error, the values after its end.
type rare struct {
	afters []*afterFunc
	stop   func() bool     // stops watching the parent
	cause  error           // when not the error
	gone   context.Context // made on the first Value after the end
}

// rareLocked returns c.rare, made if need be; c.mu is held.
func (c *Ctx) rareLocked() *rare {
	if c.rare == nil {
		c.rare = new(rare)
	}
	return c.rare
}

type afterFunc struct{ f func() }

// closedChan is the Done of a Ctx that ended before anyone asked for it.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Init makes c a context with parent's values. deadline, when not zero,
// is its deadline (which Init does not enforce: the caller cancels it with
// context.DeadlineExceeded then), else the parent's is. With watch, the
// parent's end ends c too; without, parent should be one that never ends
// (context.WithoutCancel of another).
func (c *Ctx) Init(parent context.Context, deadline time.Time, watch bool) {
	c.parent, c.deadline, c.watch = parent, deadline, watch
}

// Deadline implements context.Context.
func (c *Ctx) Deadline() (time.Time, bool) {
	if !c.deadline.IsZero() {
		return c.deadline, true
	}
	return c.parent.Deadline()
}

// Done implements context.Context. The channel is made on first use, and
// the parent watched from then on: a handler that never asks costs
// nothing.
func (c *Ctx) Done() <-chan struct{} {
	c.mu.Lock()
	first := c.done == nil
	if first {
		c.done = make(chan struct{})
	}
	d := c.done
	c.mu.Unlock()
	if first {
		c.watchParent()
	}
	return d
}

// Err implements context.Context: why Cancel ended it, or why its watched
// parent ended (even when nothing watches it yet).
func (c *Ctx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err == nil && c.watch {
		err = c.parent.Err()
	}
	return err
}

// Value implements context.Context: the parent's values. Once c has ended,
// the values come through a context that ended as c did, so that
// context.Cause(c) is c's cause rather than that of a context above it.
func (c *Ctx) Value(key any) any {
	if c.ended.Load() {
		return c.goneContext().Value(key)
	}
	return c.parent.Value(key)
}

// goneContext is the parent's values under a context ended with c's
// cause, made once.
func (c *Ctx) goneContext() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.rareLocked()
	if r.gone == nil {
		cause := r.cause
		if cause == nil {
			cause = c.err
		}
		ctx, cancel := context.WithCancelCause(context.WithoutCancel(c.parent))
		cancel(cause)
		r.gone = ctx
	}
	return r.gone
}

// AfterFunc arranges for f to run in its own goroutine once c ends (at
// once if it has), like context.AfterFunc; stop unregisters it.
func (c *Ctx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	a := &afterFunc{f: f}
	r := c.rareLocked()
	r.afters = append(r.afters, a)
	watch := c.watch && r.stop == nil
	c.mu.Unlock()
	if watch {
		c.watchParent()
	}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range r.afters {
			if x == a {
				r.afters = append(r.afters[:i], r.afters[i+1:]...)
				return true
			}
		}
		return false
	}
}

// watchParent makes the parent's end end c (at once if the parent has
// ended), unless c does not watch its parent, already does, or has ended.
func (c *Ctx) watchParent() {
	if !c.watch {
		return
	}
	if err := c.parent.Err(); err != nil {
		c.Cancel(err, context.Cause(c.parent))
		return
	}
	stop := context.AfterFunc(c.parent, func() {
		c.Cancel(c.parent.Err(), context.Cause(c.parent))
	})
	c.mu.Lock()
	if c.err != nil || (c.rare != nil && c.rare.stop != nil) {
		// Ended meanwhile, or watched by another caller.
		c.mu.Unlock()
		stop()
		return
	}
	c.rareLocked().stop = stop
	c.mu.Unlock()
}

// Cancel ends c with err (and cause, or err when nil), once: Err returns
// err, Done is closed, the functions of AfterFunc run, and the parent is
// no longer watched.
func (c *Ctx) Cancel(err, cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if cause != nil && cause != err {
		c.rareLocked().cause = cause
	}
	if c.done == nil {
		c.done = closedChan
	} else {
		close(c.done)
	}
	var afters []*afterFunc
	var stop func() bool
	if r := c.rare; r != nil {
		afters, stop = r.afters, r.stop
		r.afters, r.stop = nil, nil
	}
	c.ended.Store(true)
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	for _, a := range afters {
		go a.f()
	}
}

// String names the context, as the context package's own do.
func (c *Ctx) String() string { return "lazyctx.Ctx" }
