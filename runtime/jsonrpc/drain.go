package jsonrpc

import (
	"context"
	"time"
)

// The drain: the end of the stream or of Serve's context lets the requests
// already read run and be answered, within Options.DrainTimeout.

// beginDrain starts a drain (once): requests read from now on are
// refused, and after DrainTimeout the ones in flight are answered with an
// error and cancelled.
func (c *Conn) beginDrain() {
	c.mu.Lock()
	if c.draining {
		c.mu.Unlock()
		return
	}
	c.draining = true
	c.drainTimer = time.AfterFunc(c.drainFor, c.expireAll)
	c.closeDrainedLocked(false)
	c.mu.Unlock()
	if c.onDrain != nil {
		go c.onDrain()
	}
}

// closeDrainedLocked closes drained when a drain runs and nothing is in
// flight any more (or always, with force).
func (c *Conn) closeDrainedLocked(force bool) {
	if !force && (!c.draining || len(c.inflight) > 0) {
		return
	}
	select {
	case <-c.drained:
	default:
		close(c.drained)
	}
}

// awaitDrain waits until no request is in flight; the drain timer makes
// sure that happens.
func (c *Conn) awaitDrain() {
	<-c.drained
	c.mu.Lock()
	if c.drainTimer != nil {
		c.drainTimer.Stop()
	}
	c.mu.Unlock()
}

// expireAll ends the drain: every request still running or queued is
// cancelled and answered with errDrainExpired.
func (c *Conn) expireAll() {
	c.mu.Lock()
	es := make([]*inflight, 0, len(c.inflight))
	for id, e := range c.inflight {
		if e.state == stRunning || e.state == stQueued {
			if e.state == stQueued {
				c.qbytes -= e.cost()
			}
			e.state = stDone
			es = append(es, e)
		}
		delete(c.inflight, id)
	}
	c.mu.Unlock()
	for _, e := range es {
		e.stopTimer()
		e.Cancel(context.Canceled, nil)
		c.log.Debug("jsonrpc: request cut short by shutdown", "method", e.req.Method, "id", e.req.ID.String())
		c.replyErrorObj(e.batch, e.req.ID, true, errDrainExpired)
	}
	// Only now is the drain over: Serve returns once drained is closed,
	// and the answers above must be written by then.
	c.mu.Lock()
	c.closeDrainedLocked(false)
	c.mu.Unlock()
}

// shutdown cancels every request, waits for the handler goroutines and fails
// the pending calls. Called by Serve once reading stops (and any drain is
// over).
func (c *Conn) shutdown() {
	c.mu.Lock()
	c.stopping = true
	if c.drainTimer != nil {
		c.drainTimer.Stop()
	}
	for _, e := range c.inflight {
		e.state = stCancelled
		e.stopTimer()
		e.Cancel(context.Canceled, nil)
	}
	clear(c.inflight)
	clear(c.queue)
	c.queue, c.qhead, c.qbytes = nil, 0, 0
	c.cond.Broadcast()
	c.mu.Unlock()
	// No response can arrive any more: fail the calls before waiting, in
	// case a handler waits for one with a context that is not its own.
	c.failCalls()
	close(c.quit)
	c.wg.Wait()
}
