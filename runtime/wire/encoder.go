package wire

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Encoder appends compact JSON to an internal buffer.
//
// Separators are automatic: a comma is written before a value, field name or
// container start that follows a completed value at the same level. The
// caller is responsible for well-formed nesting (every ObjectStart has an
// ObjectEnd, object members are Field then value).
//
// The zero Encoder is ready to use; it must not be used by several
// goroutines at once. Values that cannot be represented (NaN,
// ±Inf) are written as null and recorded in Err, so invalid output is never
// produced silently.
type Encoder struct {
	buf       []byte
	comma     bool // a value was just completed: the next item needs a ','
	unchecked bool // RawValue does not check (Unchecked)
	err       error
}

// Bytes returns the encoded JSON. It aliases the encoder's buffer and is
// valid until the next write or Reset.
func (e *Encoder) Bytes() []byte { return e.buf }

// Len returns the number of bytes encoded so far.
func (e *Encoder) Len() int { return len(e.buf) }

// Reset empties the encoder, keeping its buffer, and clears Err and
// Unchecked.
func (e *Encoder) Reset() {
	e.buf = e.buf[:0]
	e.comma = false
	e.unchecked = false
	e.err = nil
}

// Unchecked makes RawValue (and Members) write raw values as they are,
// without checking that they are JSON, until Reset: for an encoding that is
// compared rather than sent, where different bytes in stay different bytes
// out (protocol.ResultCache compares a result's encoding with the last
// one's). Never for output a peer reads.
func (e *Encoder) Unchecked() { e.unchecked = true }

// Err returns the first error recorded while encoding, or nil.
func (e *Encoder) Err() error { return e.err }

func (e *Encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// sep writes the separator owed by a previous value.
func (e *Encoder) sep() {
	if e.comma {
		e.buf = append(e.buf, ',')
	}
}

// ObjectStart, ObjectEnd, ArrayStart and ArrayEnd are not inlined:
// generated encoders call them at thousands of sites, and a copy of their
// bodies (an append each) at every site made a two-revision server 0.23 MB
// bigger, for no time measured.

// ObjectStart writes '{'.
//
//go:noinline
func (e *Encoder) ObjectStart() {
	e.sep()
	e.buf = append(e.buf, '{')
	e.comma = false
}

// ObjectEnd writes '}'.
//
//go:noinline
func (e *Encoder) ObjectEnd() {
	e.buf = append(e.buf, '}')
	e.comma = true
}

// ReopenObject undoes the ObjectEnd of the object just written so that
// more members can follow; ObjectEnd closes it again. It reports false, and
// changes nothing, when the last value written is not an object.
func (e *Encoder) ReopenObject() bool {
	n := len(e.buf)
	if n < 2 || e.buf[n-1] != '}' {
		return false
	}
	e.buf = e.buf[:n-1]
	e.comma = e.buf[n-2] != '{'
	return true
}

// ArrayStart writes '['.
//
//go:noinline
func (e *Encoder) ArrayStart() {
	e.sep()
	e.buf = append(e.buf, '[')
	e.comma = false
}

// ArrayEnd writes ']'.
//
//go:noinline
func (e *Encoder) ArrayEnd() {
	e.buf = append(e.buf, ']')
	e.comma = true
}

// Field writes the member name, escaped, and a colon; the member's value
// must follow.
func (e *Encoder) Field(name string) {
	e.sep()
	e.buf = appendString(e.buf, name)
	e.buf = append(e.buf, ':')
	e.comma = false
}

// FieldRaw writes a member name given as its complete, already escaped
// `"name":` text, as generated code does for names known in advance.
//
// FieldRaw and the Field* writers below are never inlined: generated
// encoders call them once per member, and a copy of their append at each of
// those thousands of call sites made a server's binary hundreds of
// kilobytes bigger for a saving of about a nanosecond per member.
//
//go:noinline
func (e *Encoder) FieldRaw(quotedColon string) {
	e.sep()
	e.buf = append(e.buf, quotedColon...)
	e.comma = false
}

// FieldStr writes a member whose value is the string s: FieldRaw(quotedColon)
// then Str(s), in one call.
//
//go:noinline
func (e *Encoder) FieldStr(quotedColon, s string) {
	e.sep()
	e.buf = appendString(append(e.buf, quotedColon...), s)
	e.comma = true
}

// FieldInt64 writes a member whose value is n, like FieldStr.
//
//go:noinline
func (e *Encoder) FieldInt64(quotedColon string, n int64) {
	e.sep()
	e.buf = strconv.AppendInt(append(e.buf, quotedColon...), n, 10)
	e.comma = true
}

// FieldBool writes a member whose value is v, like FieldStr.
//
//go:noinline
func (e *Encoder) FieldBool(quotedColon string, v bool) {
	e.sep()
	e.buf = append(e.buf, quotedColon...)
	if v {
		e.buf = append(e.buf, "true"...)
	} else {
		e.buf = append(e.buf, "false"...)
	}
	e.comma = true
}

// FieldFloat64 writes a member whose value is f, like FieldStr (and like
// Float64 for NaN and ±Inf).
//
//go:noinline
func (e *Encoder) FieldFloat64(quotedColon string, f float64) {
	e.FieldRaw(quotedColon)
	e.Float64(f)
}

// Str writes s as a JSON string (see appendString for the escaping rules).
func (e *Encoder) Str(s string) {
	e.sep()
	e.buf = appendString(e.buf, s)
	e.comma = true
}

// StrBytes writes b as a JSON string, like Str.
func (e *Encoder) StrBytes(b []byte) {
	e.sep()
	// A string view of b, only read while it is appended.
	e.buf = appendString(e.buf, unsafe.String(unsafe.SliceData(b), len(b)))
	e.comma = true
}

// Int64 writes n.
func (e *Encoder) Int64(n int64) {
	e.sep()
	e.buf = strconv.AppendInt(e.buf, n, 10)
	e.comma = true
}

// Float64 writes f exactly as encoding/json does (the shortest decimal that
// round-trips, in ES6 number style). NaN and ±Inf have no JSON form: null is
// written and an error recorded in Err.
func (e *Encoder) Float64(f float64) {
	e.sep()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		e.fail(errors.New("wire: unsupported float64 value " + strconv.FormatFloat(f, 'g', -1, 64)))
		e.buf = append(e.buf, "null"...)
	} else {
		e.buf = appendFloat(e.buf, f)
	}
	e.comma = true
}

// Bool writes true or false.
func (e *Encoder) Bool(v bool) {
	e.sep()
	if v {
		e.buf = append(e.buf, "true"...)
	} else {
		e.buf = append(e.buf, "false"...)
	}
	e.comma = true
}

// Null writes null.
func (e *Encoder) Null() {
	e.sep()
	e.buf = append(e.buf, "null"...)
	e.comma = true
}

// Raw writes r verbatim; it must be one valid JSON value. An empty Raw (an
// absent value) writes null.
func (e *Encoder) Raw(r Raw) {
	e.sep()
	if len(r) == 0 {
		e.buf = append(e.buf, "null"...)
	} else {
		e.buf = append(e.buf, r...)
	}
	e.comma = true
}

// RawValue writes r after checking that it is one valid JSON value (as
// Decoder.Skip validates it); an empty RawValue (an absent value) writes
// null. Invalid JSON writes null instead and is recorded in Err as a
// *PathError whose Pointer names the member being written, so invalid
// output is never produced silently. Generated encoders write the raw
// values users set with it; Raw is for bytes known to be valid.
func (e *Encoder) RawValue(r Raw) {
	if len(r) > 0 && !e.unchecked {
		if err := validValue(r); err != nil {
			e.fail(&PathError{Pointer: pointerAt(e.buf, e.comma), Err: fmt.Errorf("invalid JSON: %w", err)})
			r = nil
		}
	}
	e.Raw(r)
}

// StrMember is the object {Name: Value}: the params of the requests and
// notifications whose one member is a string (a resource's uri, a log
// level).
type StrMember struct{ Name, Value string }

// EncodeJSON implements Marshaler.
func (m StrMember) EncodeJSON(e *Encoder) {
	e.ObjectStart()
	e.Field(m.Name)
	e.Str(m.Value)
	e.ObjectEnd()
}

// Members writes each member as a field of the current object, in order,
// each value checked as by RawValue.
func (e *Encoder) Members(m Members) {
	for i := range m {
		e.Field(m[i].Name)
		e.RawValue(m[i].Value)
	}
}

// appendFloat formats f like encoding/json: 'f' notation for
// 1e-6 <= |f| < 1e21, otherwise 'e' notation with a two-digit negative
// exponent shortened (1e-07 -> 1e-7).
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	// Fast path: integers below 2^53 are printed as their digits by both
	// notations, so AppendInt gives the same bytes. Zero is excluded to
	// keep the sign of -0.
	if abs < 1<<53 && abs != 0 {
		if n := int64(f); float64(n) == f {
			return strconv.AppendInt(b, n, 10)
		}
	}
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendString appends s as a JSON string. Escaping follows encoding/json
// minus its HTML escaping ('<', '>' and '&' are kept): '"' and '\\' are
// backslash-escaped, control characters use \b \f \n \r \t or \u00XX,
// U+2028 and U+2029 are escaped (they break JavaScript embedding) and each
// invalid UTF-8 byte becomes \ufffd.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	i := plainPrefix(s)
	if i == len(s) { // fast path: nothing to escape
		dst = append(dst, s...)
		return append(dst, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			i += plainPrefix(s[i:])
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + 1
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			start = i + size
		}
		i += size
		i += plainPrefix(s[i:])
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainPrefix returns the length of the longest prefix of s made of plain
// bytes: skipPlain over a view of s, eight bytes at a time while possible.
func plainPrefix(s string) int {
	return skipPlain(unsafe.Slice(unsafe.StringData(s), len(s)), 0)
}
