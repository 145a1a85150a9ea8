package protocol

import (
	"errors"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/valid"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Params is what generated params types implement.
type Params interface {
	wire.Unmarshaler
	Validate() error
}

// DecodeParams decodes and validates raw params into p. Absent params are
// an error when required and otherwise leave p empty. Every failure is a
// -32602 whose message names the field (/params/...) and whose data lists
// each violation with its pointer and rule.
func DecodeParams(raw wire.Raw, p Params, required bool) error {
	return DecodeParamsWith(raw, required, p.DecodeJSON, p.Validate)
}

// DecodeParamsWith is DecodeParams through functions: decode reads the
// params (a method value such as p.DecodeJSON, or a union's decoder),
// validate checks them. Generated code calls it rather than DecodeParams,
// whose call of DecodeJSON through the Params interface would keep the
// decoder of every type the program stores in an interface (wire.Into).
func DecodeParamsWith(raw wire.Raw, required bool, decode func(*wire.Decoder) error, validate func() error) error {
	if len(raw) == 0 {
		if required {
			return invalidParams([]valid.Violation{{Pointer: "/params", Rule: "required", Message: "required member is missing"}})
		}
		return nil
	}
	// The params belong to the request: strings can be views of them.
	if err := wire.UnmarshalSharedWith(raw, decode); err != nil {
		return DecodeError(err)
	}
	if err := validate(); err != nil {
		return validationError(err)
	}
	return nil
}

// NoParams accepts the params of a method that declares none: absent, or
// an object (whose members are ignored, as open objects are).
func NoParams(raw wire.Raw) error {
	if len(raw) == 0 || raw.Kind() == wire.Object {
		return nil
	}
	return invalidParams([]valid.Violation{{Pointer: "/params", Rule: "type", Message: "must be an object"}})
}

// DecodeError is the -32602 for params that do not decode: its message
// names the member (/params/...) and the problem.
func DecodeError(err error) error {
	ptr := "/params" + wire.Pointer(err)
	msg := err.Error()
	var pe *wire.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	var se *wire.SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
	}
	return invalidParams([]valid.Violation{{Pointer: ptr, Rule: "type", Message: msg}})
}

func validationError(err error) error {
	var ve *valid.Error
	if !errors.As(err, &ve) {
		return invalidParams([]valid.Violation{{Pointer: "/params", Message: err.Error()}})
	}
	return invalidParams(ve.Prefixed("/params").Violations)
}

// invalidParams is the -32602 for violations: the message lists them (up
// to valid.MaxListed, counting the rest), the data up to valid.MaxData.
func invalidParams(vs []valid.Violation) *jsonrpc.Error {
	msg := "invalid params: " + valid.List(vs)
	if len(vs) > valid.MaxData {
		vs = vs[:valid.MaxData]
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"violations":`)
	e.ArrayStart()
	for _, v := range vs {
		e.ObjectStart()
		e.FieldRaw(`"pointer":`)
		e.Str(v.Pointer)
		if v.Rule != "" {
			e.FieldRaw(`"rule":`)
			e.Str(v.Rule)
		}
		e.FieldRaw(`"message":`)
		e.Str(v.Message)
		e.ObjectEnd()
	}
	e.ArrayEnd()
	e.ObjectEnd()
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg, Data: append(wire.Raw(nil), e.Bytes()...)}
}

// InvalidParams returns a -32602 with message "invalid params: <msg>".
func InvalidParams(pointer, msg string) *jsonrpc.Error {
	return invalidParams([]valid.Violation{{Pointer: pointer, Message: msg}})
}

// NilResult is the error for a handler that returned neither a result nor
// an error: a bug in the handler, answered as an internal error.
func NilResult(method string) error {
	return errors.New("mcp: handler for " + method + " returned a nil result and no error")
}

// ParamsOf turns a possibly nil params pointer into the params of a call:
// nil sends no params member.
func ParamsOf[T any, P interface {
	*T
	wire.Marshaler
}](p P) wire.Marshaler {
	if p == nil {
		return nil
	}
	return p
}

// MaxInputRounds bounds how often a client answers InputRequiredResult and
// retries one request before giving up.
const MaxInputRounds = 10

// TooManyInputRounds is the error after MaxInputRounds: -32603 saying why,
// so that the client of a bridge that gives up learns it (the answers it
// gave did not satisfy the server) instead of a bare internal error.
func TooManyInputRounds(method string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: method + ": the server asked for input more than " + strconv.Itoa(MaxInputRounds) + " times (the answers given did not satisfy it); the request ends here"}
}

// UnexpectedAlternative is the error for a result of a kind the call did
// not ask for (a task the client did not request, an unknown resultType).
func UnexpectedAlternative(method, alt string) error {
	return errors.New("mcp: " + method + ": the server answered with an unexpected " + alt + " result")
}

// NoInputHandler is the error for an input request the client's handler
// cannot answer.
func NoInputHandler(method string) error {
	return errors.New("mcp: the server asked for " + method + " but the client has no handler for it")
}
