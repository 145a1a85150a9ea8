package jsonrpc

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The outgoing side: the Conn's own requests and notifications to the
// peer, and the responses that answer them.

// FailCall ends the pending Call id with err (see Calls.Fail).
func (c *Conn) FailCall(id ID, err error) bool { return c.calls.Fail(id, err) }

// handleResponse delivers a response to the Call waiting for it.
func (c *Conn) handleResponse(m *Message) {
	if c.calls.Deliver(m, &c.rdec, true) {
		return
	}
	if c.onUnknown != nil {
		c.onUnknown(m.ID)
	} else {
		c.log.Debug("jsonrpc: response to unknown id ignored", "id", m.ID.String())
	}
}

// failCalls fails every pending call with ErrClosed and refuses new ones.
func (c *Conn) failCalls() {
	c.closed.Store(true)
	c.calls.Close(ErrClosed)
}

// Call sends a request with a fresh integer id and waits for its response,
// decoding the result into out (which may be nil to ignore it). An error
// response is returned as *Error. When ctx is done first, Call returns
// ctx.Err() at once and a late response is dropped; use CallWithID to learn
// the id and tell the peer. It decodes through out's DecodeJSON method
// (see wire.Into for what that links); CallInto takes the decoding
// function.
func (c *Conn) Call(ctx context.Context, method string, params wire.Marshaler, out wire.Unmarshaler) error {
	return c.CallWithID(ctx, method, params, wire.To(out), nil)
}

// CallInto is Call decoding the result with out.Decode (the zero Into to
// ignore it).
func (c *Conn) CallInto(ctx context.Context, method string, params wire.Marshaler, out wire.Into) error {
	return c.CallWithID(ctx, method, params, out, nil)
}

// CallWithID is CallInto that also reports the id it uses through onID (if
// not nil) before sending the request.
func (c *Conn) CallWithID(ctx context.Context, method string, params wire.Marshaler, out wire.Into, onID func(ID)) error {
	p, err := c.calls.Start(out)
	if err != nil {
		return err
	}
	id := p.ID()
	if onID != nil {
		onID(id)
	}
	if c.pstream != nil {
		// A handler on the reading goroutine would wait for its own
		// reading.
		c.handOff()
	}
	enc := wire.GetEncoder()
	encodeRequest(enc, id, true, method, params)
	err = enc.Err()
	if err == nil {
		err = c.send(ctx, enc.Bytes())
	}
	wire.PutEncoder(enc)
	if err != nil {
		c.calls.Abandon(p)
		return err
	}
	return c.calls.Wait(ctx, p)
}

// Notify sends a notification (params omitted when nil).
func (c *Conn) Notify(ctx context.Context, method string, params wire.Marshaler) error {
	if c.closed.Load() {
		return ErrClosed
	}
	enc := wire.GetEncoder()
	encodeRequest(enc, ID{}, false, method, params)
	err := enc.Err()
	if err == nil {
		err = c.send(ctx, enc.Bytes())
	}
	wire.PutEncoder(enc)
	return err
}
