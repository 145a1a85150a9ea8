package streamhttp

import (
	"errors"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// kind classifies a message read from an HTTP body or an SSE event.
type kind uint8

const (
	kindInvalid kind = iota
	kindRequest
	kindNotification
	kindResponse
)

// message is one JSON-RPC message, parsed strictly as the jsonrpc engine
// does: "jsonrpc" must be "2.0"; an id is a string or an integer literal;
// params an object or an array; a response has exactly one of result and
// error.
type message struct {
	kind   kind
	id     jsonrpc.ID
	hasID  bool // id is usable (to echo in an error)
	method string
	params wire.Raw
	result wire.Raw
	err    *jsonrpc.Error
	// problem says why an invalid message is invalid.
	problem string
}

// request returns the message as a jsonrpc.Request.
func (m *message) request() *jsonrpc.Request {
	return &jsonrpc.Request{ID: m.id, IsNotification: m.kind == kindNotification, Method: m.method, Params: m.params}
}

// errParse reports a body that is not one JSON value.
type errParse struct{ err error }

func (e errParse) Error() string { return e.err.Error() }

func (e errParse) Unwrap() error { return e.err }

// parseMessage parses one message. Malformed JSON is an errParse; a JSON
// value that is not a valid message has kind kindInvalid and a problem (a
// batch too: parseBatch parses those).
func parseMessage(b []byte) (*message, error) {
	d := wire.NewDecoder(b)
	m := &message{}
	if d.Peek() == wire.Array {
		if err := d.Skip(); err != nil {
			return nil, errParse{err}
		}
		if err := d.End(); err != nil {
			return nil, errParse{err}
		}
		m.problem = "batch requests are not supported"
		return m, nil
	}
	if d.Peek() != wire.Object {
		if err := d.Skip(); err != nil {
			return nil, errParse{err}
		}
		if err := d.End(); err != nil {
			return nil, errParse{err}
		}
		m.problem = "a message must be an object"
		return m, nil
	}
	var version, hasMethod, methodBad, hasResult, hasError, hasParams, idNull, idBad bool
	var idSeen bool
	var errRaw wire.Raw
	var paramsKind wire.Kind
	err := d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "jsonrpc":
			if d.Peek() != wire.String {
				return d.Skip()
			}
			var v []byte
			v, err = d.StrBytes()
			version = string(v) == "2.0"
		case "id":
			idSeen = true
			switch d.Peek() {
			case wire.String:
				var s string
				s, err = d.Str()
				m.id, m.hasID = wire.StringValue(s), true
			case wire.Number:
				var lit []byte
				lit, err = d.Number()
				if n, perr := strconv.ParseInt(string(lit), 10, 64); perr == nil && err == nil {
					m.id, m.hasID = wire.IntValue(n), true
				} else {
					idBad = true
				}
			case wire.Null:
				idNull = true
				err = d.Null()
			default:
				idBad = true
				err = d.Skip()
			}
		case "method":
			hasMethod = true
			if d.Peek() != wire.String {
				methodBad = true
				return d.Skip()
			}
			m.method, err = d.Str()
		case "params":
			hasParams = true
			paramsKind = d.Peek()
			m.params, err = d.Raw()
		case "result":
			hasResult = true
			m.result, err = d.Raw()
		case "error":
			hasError = true
			errRaw, err = d.Raw()
		default:
			err = d.Skip()
		}
		return err
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, errParse{err}
	}
	switch {
	case idBad:
		m.problem = "id must be a string or an integer"
	case !version:
		m.problem = `"jsonrpc" must be "2.0"`
	case hasMethod && methodBad:
		m.problem = `"method" must be a string`
	case hasMethod && (hasResult || hasError):
		m.problem = `a request must not have "result" or "error"`
	case hasMethod && hasParams && paramsKind != wire.Object && paramsKind != wire.Array:
		m.problem = `"params" must be an object or an array`
	case hasMethod && idNull:
		m.problem = "id must be a string or an integer"
	case hasMethod && !idSeen:
		m.kind = kindNotification
	case hasMethod:
		m.kind = kindRequest
	case hasResult && hasError:
		m.problem = `a response must not have both "result" and "error"`
	case !hasResult && !hasError:
		m.problem = `a message needs "method", "result" or "error"`
	case hasResult && !m.hasID:
		m.problem = "id must be a string or an integer"
	default:
		m.kind = kindResponse
		if hasError {
			e := new(jsonrpc.Error)
			if err := wire.Unmarshal(errRaw, e); err != nil {
				e = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "malformed error response: " + err.Error()}
			}
			m.err = e
		}
	}
	return m, nil
}

// errBatchTooLarge reports a batch with more elements than allowed.
var errBatchTooLarge = errors.New("too many messages in the batch")

// isBatch reports a body whose top-level value is an array: a JSON-RPC
// batch (which may still be malformed).
func isBatch(b []byte) bool { return wire.NewDecoder(b).Peek() == wire.Array }

// parseBatch parses a batch: a JSON array of messages. Malformed JSON is an
// errParse; each element is parsed as parseMessage parses a message, except
// that an element that is not an object (an array included) is invalid
// with "a message must be an object". More than max elements (max > 0) is
// errBatchTooLarge, without parsing the elements.
func parseBatch(b []byte, max int) ([]*message, error) {
	d := wire.NewDecoder(b)
	d.SetShared(true) // the elements are views; parseMessage copies what it keeps
	var elems []wire.Raw
	err := d.Array(func() error {
		e, err := d.Raw()
		if err != nil {
			return err
		}
		elems = append(elems, e)
		return nil
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, errParse{err}
	}
	if max > 0 && len(elems) > max {
		return nil, errBatchTooLarge
	}
	msgs := make([]*message, 0, len(elems))
	for _, e := range elems {
		if e.Kind() != wire.Object {
			msgs = append(msgs, &message{problem: "a message must be an object"})
			continue
		}
		m, err := parseMessage(e)
		if err != nil {
			// Cannot happen: the element was validated as JSON.
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

// parseMessages parses what a server sends in a response body or an SSE
// event: one message, or a batch of them (2025-03-26 lets the server batch
// its messages). Invalid elements of a batch are returned with kind
// kindInvalid.
func parseMessages(b []byte) ([]*message, error) {
	if isBatch(b) {
		return parseBatch(b, 0)
	}
	m, err := parseMessage(b)
	if err != nil {
		return nil, err
	}
	return []*message{m}, nil
}

// joinBatch encodes messages as one batch: a JSON array.
func joinBatch(msgs [][]byte) []byte {
	n := 2
	for _, m := range msgs {
		n += len(m) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	return append(out, ']')
}

// idOf extracts the id of a body best-effort, for error responses about a
// body that is otherwise rejected.
func idOf(b []byte) (jsonrpc.ID, bool) {
	d := wire.NewDecoder(b)
	k, s, err := d.PeekMember("id")
	if err != nil {
		return jsonrpc.ID{}, false
	}
	switch k {
	case wire.String:
		return wire.StringValue(string(s)), true
	case wire.Number:
		var id jsonrpc.ID
		found := false
		_ = d.Object(func(key []byte) error {
			if string(key) != "id" || found {
				return d.Skip()
			}
			lit, err := d.Number()
			if err != nil {
				return err
			}
			if n, perr := strconv.ParseInt(string(lit), 10, 64); perr == nil {
				id, found = wire.IntValue(n), true
			}
			return nil
		})
		return id, found
	}
	return jsonrpc.ID{}, false
}

var version = wire.Raw(`"2.0"`)

// encodeResult encodes a success response.
func encodeResult(id jsonrpc.ID, res wire.Marshaler) ([]byte, error) {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"jsonrpc":`)
	e.Raw(version)
	e.FieldRaw(`"id":`)
	id.EncodeJSON(e)
	e.FieldRaw(`"result":`)
	if res == nil {
		e.ObjectStart()
		e.ObjectEnd()
	} else {
		res.EncodeJSON(e)
	}
	e.ObjectEnd()
	if err := e.Err(); err != nil {
		return nil, err
	}
	return append([]byte(nil), e.Bytes()...), nil
}

// encodeError encodes an error response; without an id the member is left
// out (the MCP schemas make it optional and refuse null).
func encodeError(id jsonrpc.ID, hasID bool, je *jsonrpc.Error) []byte {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"jsonrpc":`)
	e.Raw(version)
	if hasID {
		e.FieldRaw(`"id":`)
		id.EncodeJSON(e)
	}
	e.FieldRaw(`"error":`)
	je.EncodeJSON(e)
	e.ObjectEnd()
	return append([]byte(nil), e.Bytes()...)
}

// encodeRequest encodes a request (hasID) or a notification.
func encodeRequest(id jsonrpc.ID, hasID bool, method string, params wire.Marshaler) ([]byte, error) {
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"jsonrpc":`)
	e.Raw(version)
	if hasID {
		e.FieldRaw(`"id":`)
		id.EncodeJSON(e)
	}
	e.FieldRaw(`"method":`)
	e.Str(method)
	if params != nil {
		e.FieldRaw(`"params":`)
		params.EncodeJSON(e)
	}
	e.ObjectEnd()
	if err := e.Err(); err != nil {
		return nil, err
	}
	return append([]byte(nil), e.Bytes()...), nil
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
