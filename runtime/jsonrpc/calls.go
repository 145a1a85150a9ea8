package jsonrpc

import (
	"context"
	"fmt"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Calls is the table of a peer's outgoing requests waiting for their
// responses: it gives each a fresh integer id, hands each response to the
// request it answers, and fails what is pending when the connection ends.
// A Conn keeps one; so do transports that carry calls themselves (the
// Streamable HTTP client, and the server's stateful sessions, whose
// requests to the client are answered by POST). The zero value is ready to
// use; a Calls is safe for concurrent use.
type Calls struct {
	mu     sync.Mutex
	m      map[int64]*Pending
	last   int64
	closed error // set by Close: new calls fail with it
}

// Pending is one outgoing request waiting for its response. It is recycled
// once Wait returns (or Abandon is called): do not keep it.
type Pending struct {
	n    int64
	out  wire.Into
	err  error
	done chan struct{} // capacity 1; signalled once by whoever removes it from the table
}

var pendingPool = sync.Pool{New: func() any { return &Pending{done: make(chan struct{}, 1)} }}

func putPending(p *Pending) {
	p.out, p.err = wire.Into{}, nil
	pendingPool.Put(p)
}

// ID is the id the request must be sent with.
func (p *Pending) ID() ID { return wire.IntValue(p.n) }

// Answered reports whether the response (or the table's end) has arrived,
// without waiting.
func (p *Pending) Answered() bool { return len(p.done) > 0 }

// Offset makes the ids Start gives continue after n: peers that share the
// calls of one conversation (instances serving one session) give ids
// that do not collide. Call it before the first Start.
func (t *Calls) Offset(n int64) {
	t.mu.Lock()
	if t.last < n {
		t.last = n
	}
	t.mu.Unlock()
}

// Start registers a request whose result Deliver decodes into out (the
// zero Into to ignore it). After Close it fails with the error Close was
// given.
func (t *Calls) Start(out wire.Into) (*Pending, error) {
	p := pendingPool.Get().(*Pending)
	p.out = out
	t.mu.Lock()
	if t.closed != nil {
		err := t.closed
		t.mu.Unlock()
		putPending(p)
		return nil, err
	}
	if t.m == nil {
		t.m = map[int64]*Pending{}
	}
	t.last++
	p.n = t.last
	t.m[p.n] = p
	t.mu.Unlock()
	return p, nil
}

// Wait waits for p's response: nil for a result (decoded into out), the
// *Error of an error response, the error of a failed decoding, or the
// error of Close. When ctx is done first, the request is abandoned (a late
// response is dropped) and ctx.Err() returned.
func (t *Calls) Wait(ctx context.Context, p *Pending) error {
	select {
	case <-p.done:
	case <-ctx.Done():
		if t.remove(p) {
			putPending(p)
			return ctx.Err()
		}
		// The response was being delivered; it is complete now.
		<-p.done
	}
	err := p.err
	putPending(p)
	return err
}

// Poll is Wait without waiting: when the response has not arrived, the
// request is abandoned and answered is false.
func (t *Calls) Poll(p *Pending) (err error, answered bool) {
	select {
	case <-p.done:
	default:
		if t.remove(p) {
			putPending(p)
			return nil, false
		}
		<-p.done
	}
	err = p.err
	putPending(p)
	return err, true
}

// Abandon drops a request that could not be sent.
func (t *Calls) Abandon(p *Pending) {
	if !t.remove(p) {
		<-p.done
	}
	putPending(p)
}

// Fail ends the pending request id with err, as if err were its response,
// and reports whether one was waiting (a peer may end a request of ours
// without answering it, as an MCP server ends a subscriptions/listen
// stream on stdio with notifications/cancelled).
func (t *Calls) Fail(id ID, err error) bool {
	if !id.IsInt() {
		return false
	}
	t.mu.Lock()
	p := t.m[id.Int()]
	if p != nil {
		delete(t.m, id.Int())
	}
	t.mu.Unlock()
	if p == nil {
		return false
	}
	p.err = err
	p.done <- struct{}{}
	return true
}

// remove takes p out of the table; false when a response or Close already
// did (and is signalling it).
func (t *Calls) remove(p *Pending) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m[p.n] != p {
		return false
	}
	delete(t.m, p.n)
	return true
}

// Deliver hands response m to the request it answers and reports whether
// one was waiting. The result is decoded into the request's out with d
// (nil: a pooled decoder of default depth) as views of its bytes: pass
// reused true when m's bytes are a buffer that will be reused, and the
// result gets bytes of its own first.
func (t *Calls) Deliver(m *Message, d *wire.Decoder, reused bool) bool {
	if !m.HasID || !m.ID.IsInt() {
		return false
	}
	t.mu.Lock()
	p := t.m[m.ID.Int()]
	if p != nil {
		delete(t.m, m.ID.Int())
	}
	t.mu.Unlock()
	if p == nil {
		return false
	}
	p.err = m.Response()
	if p.err == nil && p.out.Decode != nil {
		p.err = decodeResult(p.out, m.Result, d, reused)
	}
	p.done <- struct{}{}
	return true
}

// decodeResult decodes a result into out, as views of its bytes.
func decodeResult(out wire.Into, res wire.Raw, d *wire.Decoder, reused bool) error {
	if reused {
		res = append(wire.Raw(nil), res...)
	}
	var err error
	if d == nil {
		err = wire.UnmarshalSharedWith(res, out.Decode)
	} else {
		d.Reset(res)
		d.SetShared(true)
		err = out.Decode(d)
		if err == nil {
			err = d.End()
		}
		d.SetShared(false)
		d.Reset(nil)
	}
	if err != nil {
		return fmt.Errorf("jsonrpc: decoding result: %w", wire.WithField(err, "result"))
	}
	return nil
}

// Close fails every pending request with err and refuses new ones with it
// (the first error Close is given stays).
func (t *Calls) Close(err error) {
	t.mu.Lock()
	if t.closed == nil {
		t.closed = err
	}
	for n, p := range t.m {
		p.err = err
		p.done <- struct{}{}
		delete(t.m, n)
	}
	t.mu.Unlock()
}
