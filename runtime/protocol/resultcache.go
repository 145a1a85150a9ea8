package protocol

import (
	"bytes"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// A ResultCache keeps a bridge's last conversion of one method's result,
// so that a handler answering with the same result again — a static list
// of tools, prompts or resources, the common case — is not converted
// again. The handler's result is encoded (cheaper than converting it: no
// allocation, no map; its raw members are copied unchecked), and when its
// JSON is the JSON last converted, the last conversion is returned. A
// bridge converts a result from the result alone (never from the
// request), so equal JSON makes an equal conversion. A result whose JSON
// changed, even in place behind the same pointer, is converted afresh.
// Generated bridges keep one for each list method (generated-code
// version 8).
//
// A conversion may thus be returned for several requests, as a handler's
// own static result is: results are read, never modified, once a handler
// returned them (see mcp.MessageHandler).
//
// The zero value is ready to use; a ResultCache is safe for concurrent
// use. It holds one result and its JSON, up to MaxCachedResult bytes.
type ResultCache[S wire.Marshaler, D any] struct {
	last atomic.Pointer[cachedResult[D]]
}

// MaxCachedResult is the largest JSON of a result a ResultCache keeps: a
// larger one is converted every time, so that a cache holds no more than
// this (and its conversion) per method.
const MaxCachedResult = 1 << 20

type cachedResult[D any] struct {
	json wire.Raw
	out  D
}

// Convert returns convert(in), or the conversion of an earlier in whose
// JSON was in's.
func (c *ResultCache[S, D]) Convert(in S, convert func(S) D) D {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	// Raw members as they are: the encoding is compared, not sent, and the
	// answer's own encoding checks them.
	e.Unchecked()
	in.EncodeJSON(e)
	if e.Err() != nil {
		// NaN or an infinity: converted as it is; encoding the answer
		// reports it.
		return convert(in)
	}
	b := e.Bytes()
	if last := c.last.Load(); last != nil && bytes.Equal(last.json, b) {
		return last.out
	}
	out := convert(in)
	if len(b) <= MaxCachedResult {
		c.last.Store(&cachedResult[D]{json: bytes.Clone(b), out: out})
	}
	return out
}
