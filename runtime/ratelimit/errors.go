package ratelimit

import (
	"errors"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Code is the JSON-RPC error code of a request refused because its
// client is over a rate limit. MCP leaves
// -32000 … -32019 to implementations (the specification allocates codes
// from -32020 on, and receivers must not read cross-implementation meaning
// into the lower ones), so this is mcpgen's own. The error's data says
// when to retry: {"retryAfterMs": N, "limit": "…"}. Over Streamable HTTP
// the response is 429 with Retry-After (seconds).
const Code = -32010

// Refused returns the error of a request over limit (a description,
// "10 requests/s, burst 20" say), which may be retried after retryAfter.
// The data carries retryAfter in whole milliseconds rounded up, so that a
// client waiting exactly that long finds its token there.
func Refused(limit string, retryAfter time.Duration) *jsonrpc.Error {
	ms := max(int64((retryAfter+time.Millisecond-1)/time.Millisecond), 1)
	var e wire.Encoder
	e.ObjectStart()
	e.Field("retryAfterMs")
	e.Int64(ms)
	e.Field("limit")
	e.Str(limit)
	e.ObjectEnd()
	return &jsonrpc.Error{Code: Code, Message: "rate limited (" + limit + "): retry in " + strconv.FormatInt(ms, 10) + " ms", Data: e.Bytes()}
}

// RetryAfter reports when a request refused with Code may be
// retried (its data's retryAfterMs); ok is false for other errors.
func RetryAfter(err error) (d time.Duration, ok bool) {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != Code {
		return 0, false
	}
	ms, _ := wire.MemberOf(je.Data, "retryAfterMs")
	n, _ := strconv.ParseInt(string(ms), 10, 64)
	return time.Duration(n) * time.Millisecond, true
}
