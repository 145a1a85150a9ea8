package jsonrpc

import (
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// idState tells what the "id" member of a message held.
type idState uint8

const (
	idAbsent  idState = iota // no "id" member
	idNull                   // "id": null
	idValid                  // a string or an integer; see envelope.id
	idInvalid                // anything else: float, bool, object, array, out-of-range integer
)

// presence of the "jsonrpc" member.
const (
	versionAbsent uint8 = iota
	versionOK
	versionBad
)

// envelope is the parsed top level of one message, as Parser reads it.
// Byte slices and spans refer to the message buffer and are valid only
// while it is.
type envelope struct {
	id      ID
	idState idState
	version uint8

	hasMethod bool
	methodBad bool   // "method" present but not a string
	method    []byte // unescaped copy in methodBuf
	methodBuf []byte // reused between messages

	hasParams   bool
	paramsKind  wire.Kind
	paramsStart int
	paramsEnd   int

	hasResult   bool
	resultStart int
	resultEnd   int

	hasError   bool
	errorStart int
	errorEnd   int
}

// parseEnvelope parses one message object with d (already Reset to msg) into
// env. It returns only syntax errors (the message is not valid JSON, or is
// too deeply nested); every structural problem is recorded in env for
// validate to report. Parsing allocates only for a string id.
func parseEnvelope(d *wire.Decoder, env *envelope) error {
	*env = envelope{methodBuf: env.methodBuf[:0]}
	err := d.Object(func(key []byte) error {
		switch string(key) {
		case "jsonrpc":
			if d.Peek() != wire.String {
				env.version = versionBad
				return d.Skip()
			}
			v, err := d.StrBytes()
			if err != nil {
				return err
			}
			if string(v) == "2.0" {
				env.version = versionOK
			} else {
				env.version = versionBad
			}
			return nil
		case "id":
			return parseID(d, env)
		case "method":
			env.hasMethod = true
			if d.Peek() != wire.String {
				env.methodBad = true
				env.method = nil
				return d.Skip()
			}
			m, err := d.StrBytes()
			// Copy: m may alias the decoder's scratch space, which a later
			// escaped string overwrites.
			env.methodBuf = append(env.methodBuf[:0], m...)
			env.method = env.methodBuf
			env.methodBad = false
			return err
		case "params":
			env.hasParams = true
			env.paramsKind = d.Peek()
			env.paramsStart = d.Offset()
			err := d.Skip()
			env.paramsEnd = d.Offset()
			return err
		case "result":
			env.hasResult = true
			env.resultStart = skipWS(d)
			err := d.Skip()
			env.resultEnd = d.Offset()
			return err
		case "error":
			env.hasError = true
			env.errorStart = skipWS(d)
			err := d.Skip()
			env.errorEnd = d.Offset()
			return err
		}
		return d.Skip()
	})
	if err != nil {
		return err
	}
	return d.End()
}

// skipWS moves d past whitespace and returns the new offset.
func skipWS(d *wire.Decoder) int {
	d.Peek()
	return d.Offset()
}

// parseID decodes the "id" member: a string, an integer literal that fits in
// int64, or null. Numbers with a fraction or an exponent are refused even
// when their value is integral (1.0, 1e2): JSON-RPC ids SHOULD NOT have
// fractional parts, and echoing a different spelling back would not match.
func parseID(d *wire.Decoder, env *envelope) error {
	switch d.Peek() {
	case wire.String:
		b, err := d.StrBytes()
		if err != nil {
			return err
		}
		env.id = wire.StringValue(string(b))
		env.idState = idValid
		return nil
	case wire.Number:
		lit, err := d.Number()
		if err != nil {
			return err
		}
		if n, ok := parseIntLiteral(lit); ok {
			env.id = wire.IntValue(n)
			env.idState = idValid
		} else {
			env.id = ID{}
			env.idState = idInvalid
		}
		return nil
	case wire.Null:
		env.id = ID{}
		env.idState = idNull
		return d.Null()
	}
	env.id = ID{}
	env.idState = idInvalid
	return d.Skip()
}

// parseIntLiteral parses a JSON number literal made of an optional minus and
// digits only, failing on a fraction, an exponent or int64 overflow.
func parseIntLiteral(lit []byte) (int64, bool) {
	neg := len(lit) > 0 && lit[0] == '-'
	i := 0
	if neg {
		i = 1
	}
	if i >= len(lit) {
		return 0, false
	}
	var u uint64
	for ; i < len(lit); i++ {
		c := lit[i] - '0'
		if c > 9 {
			return 0, false
		}
		if u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(c)
		if u > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(u), true // -(1<<63) wraps to itself: MinInt64
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// validate checks env against JSON-RPC 2.0 and returns what the message
// is; for KindInvalid, also why.
func validate(env *envelope) (Kind, string) {
	if env.idState == idInvalid {
		return KindInvalid, problemID
	}
	if env.version != versionOK {
		return KindInvalid, `"jsonrpc" must be "2.0"`
	}
	if env.hasMethod {
		switch {
		case env.methodBad:
			return KindInvalid, `"method" must be a string`
		case env.hasResult || env.hasError:
			return KindInvalid, `a request must not have "result" or "error"`
		case env.hasParams && env.paramsKind != wire.Object && env.paramsKind != wire.Array:
			return KindInvalid, `"params" must be an object or an array`
		case env.idState == idAbsent:
			return KindNotification, ""
		case env.idState == idNull:
			return KindInvalid, problemID
		}
		return KindRequest, ""
	}
	switch {
	case env.hasResult && env.hasError:
		return KindInvalid, `a response must not have both "result" and "error"`
	case !env.hasResult && !env.hasError:
		return KindInvalid, `a message needs "method", "result" or "error"`
	case env.hasResult && env.idState != idValid:
		return KindInvalid, problemID
	}
	return KindResponse, ""
}
