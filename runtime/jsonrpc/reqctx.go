package jsonrpc

import (
	"context"
	"sync"
	"time"
)

// reqCtx is the context of one request's handler, embedded in inflight so
// that a request costs one allocation rather than the three of
// context.WithCancel plus a value context. It is cancelled only explicitly
// (Cancel, timeout, shutdown, handler return); its parent is Serve's context
// without cancellation (detached), which supplies values.
//
// It implements the AfterFunc method that the context package looks for, so
// contexts derived from it (context.WithCancel, context.AfterFunc, ...)
// follow its cancellation without a goroutine each. The parent never reports
// itself as the nearest cancelCtx (its Done is nil), so context.Cause falls
// back to Err.
type reqCtx struct {
	parent   context.Context
	deadline time.Time // zero without RequestTimeout

	mu     sync.Mutex
	done   chan struct{} // made on first Done, or closedChan
	err    error
	afters []*afterFunc
}

type afterFunc struct{ f func() }

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Deadline implements context.Context.
func (c *reqCtx) Deadline() (time.Time, bool) {
	if !c.deadline.IsZero() {
		return c.deadline, true
	}
	return c.parent.Deadline()
}

// Done implements context.Context. The channel is made on first use: a
// handler that never asks for it costs nothing.
func (c *reqCtx) Done() <-chan struct{} {
	c.mu.Lock()
	if c.done == nil {
		c.done = make(chan struct{})
	}
	d := c.done
	c.mu.Unlock()
	return d
}

// Err implements context.Context.
func (c *reqCtx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	return err
}

// AfterFunc arranges for f to run in its own goroutine once c is cancelled
// (at once if it already is), like context.AfterFunc; stop unregisters it.
func (c *reqCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	a := &afterFunc{f: f}
	c.afters = append(c.afters, a)
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.afters {
			if x == a {
				c.afters = append(c.afters[:i], c.afters[i+1:]...)
				return true
			}
		}
		return false
	}
}

// cancel sets Err to err (once) and closes Done.
func (c *reqCtx) cancel(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.done == nil {
		c.done = closedChan
	} else {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	for _, a := range afters {
		go a.f()
	}
}

// detached is a context with the values of its parent but none of its
// cancellation or deadline, like context.WithoutCancel. Unlike the value
// that returns, it is a pointer, made once per Conn: a Value lookup that
// misses every handler context and reaches it (a principal, a logger, a
// trace span looked for by a handler) does not box it anew each time.
type detached struct{ parent context.Context }

func (*detached) Deadline() (time.Time, bool) { return time.Time{}, false }
func (*detached) Done() <-chan struct{}       { return nil }
func (*detached) Err() error                  { return nil }
func (d *detached) Value(key any) any         { return d.parent.Value(key) }
