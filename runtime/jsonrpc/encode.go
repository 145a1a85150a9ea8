package jsonrpc

import (
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// NoID is how an error response that cannot name its request writes its
// id: the answer to input that is not JSON, not a message, or whose id is
// unusable. JSON-RPC 2.0 says "id": null. The MCP schemas disagree by
// revision: up to 2025-06-18 JSONRPCError requires an id of type string or
// integer, so no error without one conforms, and JSON-RPC's null is what
// is left; from 2025-11-25 on JSONRPCErrorResponse makes the id optional
// and still does not allow null, so it is left out. Package mcp takes the
// rule of the revision spoken from its generated method table.
type NoID uint8

const (
	// NullID writes "id": null (JSON-RPC 2.0; the default).
	NullID NoID = iota
	// OmitID leaves the id member out.
	OmitID
)

var version = wire.Raw(`"2.0"`)

// encodeHeader starts a message with "jsonrpc" and "id": the id when hasID,
// else as noID says.
func encodeHeader(enc *wire.Encoder, id ID, hasID bool, noID NoID) {
	enc.ObjectStart()
	enc.FieldRaw(`"jsonrpc":`)
	enc.Raw(version)
	switch {
	case hasID:
		enc.FieldRaw(`"id":`)
		id.EncodeJSON(enc)
	case noID == NullID:
		enc.FieldRaw(`"id":`)
		enc.Null()
	}
}

// encodeResponse writes a success response; a nil result is null.
func encodeResponse(enc *wire.Encoder, id ID, res wire.Marshaler) {
	encodeHeader(enc, id, true, NullID)
	enc.FieldRaw(`"result":`)
	if res == nil {
		enc.Null()
	} else {
		res.EncodeJSON(enc)
	}
	enc.ObjectEnd()
}

// encodeError writes an error response.
func encodeError(enc *wire.Encoder, id ID, hasID bool, noID NoID, e *Error) {
	encodeHeader(enc, id, hasID, noID)
	enc.FieldRaw(`"error":`)
	e.EncodeJSON(enc)
	enc.ObjectEnd()
}

// encodeRequest writes a request (hasID) or a notification; params are
// left out when nil.
func encodeRequest(enc *wire.Encoder, id ID, hasID bool, method string, params wire.Marshaler) {
	enc.ObjectStart()
	enc.FieldRaw(`"jsonrpc":`)
	enc.Raw(version)
	if hasID {
		enc.FieldRaw(`"id":`)
		id.EncodeJSON(enc)
	}
	enc.FieldRaw(`"method":`)
	enc.Str(method)
	if params != nil {
		enc.FieldRaw(`"params":`)
		params.EncodeJSON(enc)
	}
	enc.ObjectEnd()
}

// appendWith appends what write encodes to dst, with a pooled encoder.
func appendWith(dst []byte, write func(*wire.Encoder)) ([]byte, error) {
	enc := wire.GetEncoder()
	defer wire.PutEncoder(enc)
	write(enc)
	if err := enc.Err(); err != nil {
		return dst, err
	}
	return append(dst, enc.Bytes()...), nil
}

// AppendResponse appends the success response to request id with result
// res (null when nil) to dst. An error is the result's encoding error.
func AppendResponse(dst []byte, id ID, res wire.Marshaler) ([]byte, error) {
	return appendWith(dst, func(enc *wire.Encoder) { encodeResponse(enc, id, res) })
}

// AppendError appends the error response e to dst: to request id when
// hasID, else without an id written as noID says.
func AppendError(dst []byte, id ID, hasID bool, noID NoID, e *Error) []byte {
	out, _ := appendWith(dst, func(enc *wire.Encoder) { encodeError(enc, id, hasID, noID, e) })
	return out
}

// AppendRequest appends the request id (params left out when nil) to dst.
func AppendRequest(dst []byte, id ID, method string, params wire.Marshaler) ([]byte, error) {
	return appendWith(dst, func(enc *wire.Encoder) { encodeRequest(enc, id, true, method, params) })
}

// AppendNotification appends a notification (params left out when nil) to
// dst.
func AppendNotification(dst []byte, method string, params wire.Marshaler) ([]byte, error) {
	return appendWith(dst, func(enc *wire.Encoder) { encodeRequest(enc, ID{}, false, method, params) })
}

// AppendBatch appends msgs, each one encoded message, as one batch: a JSON
// array.
func AppendBatch(dst []byte, msgs [][]byte) []byte {
	dst = append(dst, '[')
	for i, m := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, m...)
	}
	return append(dst, ']')
}
