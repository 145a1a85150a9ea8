package wire

import "strconv"

// StringOrInt is a JSON value that is either a string or an integer, kept as
// the kind it arrived as (JSON-RPC ids, MCP progress tokens): 7 and "7" are
// different values.
//
// The zero value is the empty string, the same as StringValue("");
// IntValue(0) is not zero.
type StringOrInt struct {
	s     string
	n     int64
	isInt bool
}

// StringValue returns a StringOrInt holding the string s.
func StringValue(s string) StringOrInt { return StringOrInt{s: s} }

// IntValue returns a StringOrInt holding the integer n.
func IntValue(n int64) StringOrInt { return StringOrInt{n: n, isInt: true} }

// IsInt reports whether v holds an integer.
func (v StringOrInt) IsInt() bool { return v.isInt }

// Int returns the integer, or 0 if v holds a string.
func (v StringOrInt) Int() int64 { return v.n }

// Str returns the string, or "" if v holds an integer.
func (v StringOrInt) Str() string { return v.s }

// IsZero reports whether v is the zero value (the empty string).
func (v StringOrInt) IsZero() bool { return !v.isInt && v.s == "" }

// Equal reports whether a and b hold the same kind and value.
func (a StringOrInt) Equal(b StringOrInt) bool {
	if a.isInt != b.isInt {
		return false
	}
	if a.isInt {
		return a.n == b.n
	}
	return a.s == b.s
}

// String formats v for logs: 7, or "abc" quoted as a JSON string.
func (v StringOrInt) String() string {
	if v.isInt {
		return strconv.FormatInt(v.n, 10)
	}
	return string(appendString(nil, v.s))
}

// AppendKey appends a compact form of v usable as a map key via string(...):
// 'i' and the decimal integer, or 's' and the string. The prefix keeps 7 and
// "7" apart, and the forms are collision-free because each kind's suffix is
// unambiguous on its own.
func (v StringOrInt) AppendKey(dst []byte) []byte {
	if v.isInt {
		return strconv.AppendInt(append(dst, 'i'), v.n, 10)
	}
	return append(append(dst, 's'), v.s...)
}

// EncodeJSON implements Marshaler.
func (v StringOrInt) EncodeJSON(e *Encoder) {
	if v.isInt {
		e.Int64(v.n)
	} else {
		e.Str(v.s)
	}
}

// DecodeJSON implements Unmarshaler. It accepts a string or a number whose
// value is an integer (see Decoder.Int64); anything else is an error
// "expected string or integer, found X".
func (v *StringOrInt) DecodeJSON(d *Decoder) error {
	switch d.Peek() {
	case String:
		s, err := d.Str()
		if err != nil {
			return err
		}
		*v = StringOrInt{s: s}
		return nil
	case Number:
		n, err := d.Int64()
		if err != nil {
			return err
		}
		*v = StringOrInt{n: n, isInt: true}
		return nil
	}
	return d.mismatch(d.pos, "string or integer")
}

// MarshalJSON implements json.Marshaler.
func (v StringOrInt) MarshalJSON() ([]byte, error) {
	var e Encoder
	v.EncodeJSON(&e)
	return e.buf, nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *StringOrInt) UnmarshalJSON(b []byte) error {
	var d Decoder
	d.Reset(b)
	if err := v.DecodeJSON(&d); err != nil {
		return err
	}
	return d.End()
}
