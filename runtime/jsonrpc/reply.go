package jsonrpc

import (
	"context"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The answers: each response or error is written as one message, or
// collected into the array that answers its batch.

// replyNow answers a message at once, while it is being read; in a batch
// that is one more response the batch waits for.
func (c *Conn) replyNow(b *batch, id ID, hasID bool, code int64, msg string) {
	c.replyNowObj(b, id, hasID, &Error{Code: code, Message: msg})
}

func (c *Conn) replyNowObj(b *batch, id ID, hasID bool, e *Error) {
	if b != nil {
		b.expect()
	}
	c.replyErrorObj(b, id, hasID, e)
}

// jsonString returns s as a JSON string value.
func jsonString(s string) wire.Raw {
	var enc wire.Encoder
	enc.Str(s)
	return enc.Bytes()
}

func (c *Conn) replyError(b *batch, id ID, hasID bool, code int64, msg string) {
	c.replyErrorObj(b, id, hasID, &Error{Code: code, Message: msg})
}

func (c *Conn) replyErrorObj(b *batch, id ID, hasID bool, e *Error) {
	enc := wire.GetEncoder()
	encodeError(enc, id, hasID, NoID(c.noID.Load()), e)
	c.reply(b, enc.Bytes())
	wire.PutEncoder(enc)
}

// reply writes a response, or adds it to its batch.
func (c *Conn) reply(b *batch, msg []byte) {
	if b != nil {
		b.add(msg)
		return
	}
	if err := c.post(msg); err != nil {
		c.log.Debug("jsonrpc: writing response failed", "error", err)
	}
}

// send writes one message and returns once it is written. A stream that
// does not post has its writes serialized by a mutex, held during the
// write: measured against a single writer goroutine fed by a channel, it
// was faster over an in-memory stream (3.1 vs 3.6 µs per round trip
// sequential, 3.6 vs 4.4 parallel) and even over OS pipes (7.6 vs 7.8, 4.3
// vs 4.1), while returning write errors to the caller and starting no
// goroutine. A PostingStream serializes its writes itself.
func (c *Conn) send(ctx context.Context, msg []byte) error {
	if c.pwriter != nil {
		return c.pwriter.WriteMessage(ctx, msg)
	}
	c.wmu.Lock()
	err := c.stream.WriteMessage(ctx, msg)
	c.wmu.Unlock()
	return err
}

// post writes a response: to a PostingStream without waiting for a write
// under way (the response goes out with the next), to another as send.
func (c *Conn) post(msg []byte) error {
	if c.pwriter != nil {
		return c.pwriter.PostMessage(msg)
	}
	return c.send(c.base, msg)
}

// batch collects the responses to the requests of one batch and writes them
// as one array once the last one is in.
type batch struct {
	conn    *Conn
	mu      sync.Mutex
	pending int // responses still owed, plus one until every element is dispatched
	n       int // responses in buf
	buf     []byte
}

func newBatch(c *Conn) *batch { return &batch{conn: c, pending: 1} }

// expect announces one more response.
func (b *batch) expect() {
	b.mu.Lock()
	b.pending++
	b.mu.Unlock()
}

// add appends an expected response, or accounts for one that will never come
// (msg nil: a cancelled request), and writes the batch after the last.
func (b *batch) add(msg []byte) {
	b.mu.Lock()
	if msg != nil {
		b.buf = append(b.buf, ',')
		b.buf = append(b.buf, msg...)
		b.n++
	}
	b.pending--
	done := b.pending == 0
	b.mu.Unlock()
	if done && b.n > 0 {
		b.buf[0] = '['
		b.buf = append(b.buf, ']')
		if err := b.conn.post(b.buf); err != nil {
			b.conn.log.Debug("jsonrpc: writing batch response failed", "error", err)
		}
	}
}

// seal marks every element dispatched.
func (b *batch) seal() { b.add(nil) }
