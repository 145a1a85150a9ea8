package jsonrpc

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The error codes JSON-RPC 2.0 defines.
const (
	CodeParseError     = -32700 // the message is not valid JSON
	CodeInvalidRequest = -32600 // valid JSON, but not a valid request object
	CodeMethodNotFound = -32601 // the method does not exist or is not available
	CodeInvalidParams  = -32602 // invalid method parameters
	CodeInternalError  = -32603 // internal error
)

// Error is a JSON-RPC error object. Handlers return it (or an error wrapping
// it) to choose the code, message and data of the error response; any other
// error is answered as an internal error without details.
type Error struct {
	Code    int64
	Message string
	Data    wire.Raw // optional; must be one valid JSON value when set
}

// Error implements error: "jsonrpc error <code>: <message>".
func (e *Error) Error() string {
	return "jsonrpc error " + strconv.FormatInt(e.Code, 10) + ": " + e.Message
}

// NewError returns an *Error with the given code and a message formatted as
// fmt.Sprintf(format, args...) (format is used verbatim without args).
func NewError(code int64, format string, args ...any) *Error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &Error{Code: code, Message: msg}
}

// MethodNotFound returns the -32601 error "method not found: <method>".
// The dispatcher never decides this itself: a Handler returns it for the
// methods it does not serve, so the protocol layer above can name them.
//
// Not inlined: generated dispatchers call it at many sites.
//
//go:noinline
func MethodNotFound(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// EncodeJSON implements wire.Marshaler: {"code":..,"message":..,"data":..},
// data omitted when empty.
func (e *Error) EncodeJSON(enc *wire.Encoder) {
	enc.ObjectStart()
	enc.FieldRaw(`"code":`)
	enc.Int64(e.Code)
	enc.FieldRaw(`"message":`)
	enc.Str(e.Message)
	if len(e.Data) > 0 {
		enc.FieldRaw(`"data":`)
		enc.Raw(e.Data)
	}
	enc.ObjectEnd()
}

// DecodeJSON implements wire.Unmarshaler. code and message are required;
// data is kept verbatim; other members are ignored.
func (e *Error) DecodeJSON(d *wire.Decoder) error {
	var hasCode, hasMessage bool
	err := d.Object(func(key []byte) error {
		var err error
		switch string(key) {
		case "code":
			e.Code, err = d.Int64()
			hasCode = true
		case "message":
			e.Message, err = d.Str()
			hasMessage = true
		case "data":
			e.Data, err = d.Raw()
		default:
			err = d.Skip()
		}
		return wire.WithField(err, string(key))
	})
	if err != nil {
		return err
	}
	if !hasCode || !hasMessage {
		return errors.New(`jsonrpc: error object needs "code" and "message"`)
	}
	return nil
}

// TooLargeError is returned by Stream.ReadMessage when one message exceeded
// the transport's size limit. The transport has skipped that message and the
// stream stays usable: Conn answers -32600 "message too large" with a null id
// and reads on.
type TooLargeError struct {
	Limit int // the limit in bytes
}

// Error implements error.
func (e *TooLargeError) Error() string {
	return "jsonrpc: message exceeds the limit of " + strconv.Itoa(e.Limit) + " bytes"
}

// ErrClosed is returned by Call, CallWithID and Notify once the connection
// has been closed or Serve has returned, and by Serve on a closed Conn.
var ErrClosed = errors.New("jsonrpc: connection closed")
