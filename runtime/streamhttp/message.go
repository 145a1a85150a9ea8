package streamhttp

import (
	"errors"
	"net/http"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/ratelimit"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// JSON-RPC on HTTP. Messages are parsed and encoded by package jsonrpc, as
// on every transport; what is left here are the rules of carrying them
// over HTTP: a result that is nothing is written {}, errors are written
// with the id rule of the revision the request speaks, and a handler's
// error that is not a JSON-RPC error keeps its text on the server.

// parse parses one message of a request body, with a pooled parser that
// interns the server's method names.
func (h *Handler) parse(body []byte) (*jsonrpc.Message, error) {
	p := h.parsers.Get().(*jsonrpc.Parser)
	defer h.parsers.Put(p)
	m := new(jsonrpc.Message)
	if err := p.Parse(body, m); err != nil {
		return nil, err
	}
	return m, nil
}

// parseBatch parses a batch body (see jsonrpc.Parser.ParseBatch).
func (h *Handler) parseBatch(body []byte) ([]*jsonrpc.Message, error) {
	p := h.parsers.Get().(*jsonrpc.Parser)
	defer h.parsers.Put(p)
	return p.ParseBatch(body, h.o.MaxBatchMessages)
}

var emptyResult = wire.Raw(`{}`)

// encodeResult encodes a success response; a nil result is {}.
func encodeResult(id jsonrpc.ID, res wire.Marshaler) ([]byte, error) {
	if res == nil {
		res = emptyResult
	}
	return jsonrpc.AppendResponse(nil, id, res)
}

// errorBody encodes an error response; without an id, as noID says.
func errorBody(id jsonrpc.ID, hasID bool, noID jsonrpc.NoID, je *jsonrpc.Error) []byte {
	return jsonrpc.AppendError(nil, id, hasID, noID, je)
}

// noID is how an error without an id is written for request r: as the
// revision its MCP-Protocol-Version header names says (the session's, on
// a stateful session), else as the server's preferred revision.
func (h *Handler) noID(r *http.Request) jsonrpc.NoID {
	if r == nil {
		return h.srv.NoID("")
	}
	return h.srv.NoID(r.Header.Get(hdrProtocolVersion))
}

// writeError writes a JSON-RPC error response to request r.
func (h *Handler) writeError(w http.ResponseWriter, r *http.Request, status int, id jsonrpc.ID, hasID bool, je *jsonrpc.Error) {
	writeJSON(w, limitedStatus(w, je, status), errorBody(id, hasID, h.noID(r), je))
}

// limitedStatus is status, unless je refuses a rate-limited request
// (ratelimit.Code), whatever the step that refused it: then 429,
// with Retry-After set on w.
func limitedStatus(w http.ResponseWriter, je *jsonrpc.Error, status int) int {
	if d, ok := ratelimit.RetryAfter(je); ok {
		setRetryAfter(w, d)
		return http.StatusTooManyRequests
	}
	return status
}

// asRPCError returns err as a *jsonrpc.Error; other errors are -32603
// "internal error" (their text stays on the server) and ok is false.
func asRPCError(err error) (je *jsonrpc.Error, ok bool) {
	if errors.As(err, &je) {
		return je, true
	}
	return errInternal, false
}

var errInternal = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error"}
