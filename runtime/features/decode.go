package features

import (
	"encoding/base64"
	"errors"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/valid"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The runtime support of the decoders mcpgen tools generates. Each reader
// takes one value of the JSON type it expects; a value of another type is
// recorded as a violation (with the path the Collector holds) and skipped,
// so one call reports every way the arguments break their schema. The
// error they return is a JSON syntax error, which stops decoding.

// ArgumentError reports arguments that break a tool's or prompt's input
// schema: every violation, with its JSON pointer below the arguments.
type ArgumentError struct {
	Violations []valid.Violation
}

// Error lists the violations (up to valid.MaxListed, counting the rest).
func (e *ArgumentError) Error() string {
	return (&valid.Error{Violations: e.Violations}).Error()
}

// Pointer is the JSON pointer of the first violation.
func (e *ArgumentError) Pointer() string {
	if len(e.Violations) == 0 {
		return ""
	}
	return e.Violations[0].Pointer
}

// Check returns the collected violations as an *ArgumentError, a syntax
// error err as an *ArgumentError at its offset, or nil.
func Check(c *valid.Collector, err error) error {
	if err != nil {
		var se *wire.SyntaxError
		if errors.As(err, &se) {
			return &ArgumentError{Violations: []valid.Violation{{Rule: "syntax", Message: "malformed JSON: " + err.Error()}}}
		}
		return &ArgumentError{Violations: []valid.Violation{{Rule: "type", Message: err.Error()}}}
	}
	var ve *valid.Error
	if errors.As(c.Err(), &ve) {
		return &ArgumentError{Violations: ve.Violations}
	}
	return nil
}

// kindName names a JSON type in messages.
var kindName = map[wire.Kind]string{wire.Object: "an object", wire.Array: "an array", wire.String: "a string", wire.Number: "a number", wire.Bool: "a boolean", wire.Null: "null"}

// want checks that the next value is of kind k; otherwise it records the
// violation and skips the value.
func want(d *wire.Decoder, c *valid.Collector, k wire.Kind, what string) (bool, error) {
	if got := d.Peek(); got != k {
		c.Fail("type", "must be "+what+", not "+kindName[got])
		return false, d.Skip()
	}
	return true, nil
}

// Object reports whether the next value is an object (else records it).
func Object(d *wire.Decoder, c *valid.Collector) (bool, error) {
	return want(d, c, wire.Object, "an object")
}

// Array reports whether the next value is an array (else records it).
func Array(d *wire.Decoder, c *valid.Collector) (bool, error) {
	return want(d, c, wire.Array, "an array")
}

// Null consumes a null and reports whether there was one.
func Null(d *wire.Decoder) (bool, error) {
	if d.Peek() != wire.Null {
		return false, nil
	}
	return true, d.Null()
}

// String reads a string.
func String(d *wire.Decoder, c *valid.Collector) (string, error) {
	if ok, err := want(d, c, wire.String, "a string"); !ok {
		return "", err
	}
	return d.Str()
}

// Bool reads a boolean.
func Bool(d *wire.Decoder, c *valid.Collector) (bool, error) {
	if ok, err := want(d, c, wire.Bool, "a boolean"); !ok {
		return false, err
	}
	return d.Bool()
}

// Int reads an integer in [min, max] (the Go type's range and the
// declared bounds). Any JSON spelling of an integral value is one (2.0,
// 2e1), as in JSON Schema; bounds are compared exactly.
func Int(d *wire.Decoder, c *valid.Collector, min, max int64) (int64, error) {
	if ok, err := want(d, c, wire.Number, "an integer"); !ok {
		return 0, err
	}
	lit, err := d.Number()
	if err != nil {
		return 0, err
	}
	if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
		switch {
		case n < min:
			c.Fail("minimum", "must be ≥ "+strconv.FormatInt(min, 10))
		case n > max:
			c.Fail("maximum", "must be ≤ "+strconv.FormatInt(max, 10))
		}
		return n, nil
	}
	r, ok := new(big.Rat).SetString(string(lit))
	switch {
	case !ok || !r.IsInt():
		c.Fail("type", "must be an integer")
	case r.Cmp(new(big.Rat).SetInt64(min)) < 0:
		c.Fail("minimum", "must be ≥ "+strconv.FormatInt(min, 10))
	case r.Cmp(new(big.Rat).SetInt64(max)) > 0:
		c.Fail("maximum", "must be ≤ "+strconv.FormatInt(max, 10))
	default:
		return r.Num().Int64(), nil
	}
	return 0, nil
}

// Uint reads a non-negative integer up to max.
func Uint(d *wire.Decoder, c *valid.Collector, min, max uint64) (uint64, error) {
	if ok, err := want(d, c, wire.Number, "an integer"); !ok {
		return 0, err
	}
	lit, err := d.Number()
	if err != nil {
		return 0, err
	}
	if n, err := strconv.ParseUint(string(lit), 10, 64); err == nil {
		switch {
		case n < min:
			c.Fail("minimum", "must be ≥ "+strconv.FormatUint(min, 10))
		case n > max:
			c.Fail("maximum", "must be ≤ "+strconv.FormatUint(max, 10))
		}
		return n, nil
	}
	r, ok := new(big.Rat).SetString(string(lit))
	lo, hi := new(big.Rat).SetInt(new(big.Int).SetUint64(min)), new(big.Rat).SetInt(new(big.Int).SetUint64(max))
	switch {
	case !ok || !r.IsInt():
		c.Fail("type", "must be an integer")
	case r.Cmp(lo) < 0:
		c.Fail("minimum", "must be ≥ "+strconv.FormatUint(min, 10))
	case r.Cmp(hi) > 0:
		c.Fail("maximum", "must be ≤ "+strconv.FormatUint(max, 10))
	default:
		return r.Num().Uint64(), nil
	}
	return 0, nil
}

// Float reads a number of bits (32 or 64) bits.
func Float(d *wire.Decoder, c *valid.Collector, bits int) (float64, error) {
	if ok, err := want(d, c, wire.Number, "a number"); !ok {
		return 0, err
	}
	lit, err := d.Number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(string(lit), bits)
	if err != nil || math.IsInf(f, 0) {
		max := strconv.FormatFloat(math.MaxFloat64, 'g', -1, 64)
		if bits == 32 {
			max = strconv.FormatFloat(math.MaxFloat32, 'g', -1, 32)
		}
		c.Fail("maximum", "must be between -"+max+" and "+max)
		return 0, nil
	}
	return f, nil
}

// Bound checks a number against declared bounds (±Inf: none).
func Bound(c *valid.Collector, v, min, max float64, exclusiveMin, exclusiveMax bool) {
	switch {
	case exclusiveMin && v <= min:
		c.Fail("exclusiveMinimum", "must be > "+fmtFloat(min))
	case v < min:
		c.Fail("minimum", "must be ≥ "+fmtFloat(min))
	case exclusiveMax && v >= max:
		c.Fail("exclusiveMaximum", "must be < "+fmtFloat(max))
	case v > max:
		c.Fail("maximum", "must be ≤ "+fmtFloat(max))
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Time reads an RFC 3339 date-time string.
func Time(d *wire.Decoder, c *valid.Collector) (time.Time, error) {
	s, err := String(d, c)
	if err != nil || s == "" && c.Failed() {
		return time.Time{}, err
	}
	t, perr := time.Parse(time.RFC3339Nano, s)
	if perr != nil {
		c.Fail("format", "must be an RFC 3339 date-time")
	}
	return t, nil
}

// Bytes reads a base64 string (standard encoding, as encoding/json).
func Bytes(d *wire.Decoder, c *valid.Collector) ([]byte, error) {
	if ok, err := want(d, c, wire.String, "a base64 string"); !ok {
		return nil, err
	}
	s, err := d.Str()
	if err != nil {
		return nil, err
	}
	b, perr := base64.StdEncoding.DecodeString(s)
	if perr != nil {
		c.Fail("contentEncoding", "must be base64")
	}
	return b, nil
}

// Raw reads any JSON value, copied.
func Raw(d *wire.Decoder) (wire.Raw, error) {
	r, err := d.Raw()
	return append(wire.Raw(nil), r...), err
}

// Length checks a string's length in characters (max < 0: no maximum).
func Length(c *valid.Collector, s string, min, max int) {
	n := utf8.RuneCountInString(s)
	switch {
	case n < min:
		c.Fail("minLength", "must be at least "+strconv.Itoa(min)+" characters long")
	case max >= 0 && n > max:
		c.Fail("maxLength", "must be at most "+strconv.Itoa(max)+" characters long")
	}
}

// Items checks an array's length (max < 0: no maximum).
func Items(c *valid.Collector, n, min, max int) {
	switch {
	case n < min:
		c.Fail("minItems", "must have at least "+strconv.Itoa(min)+" items")
	case max >= 0 && n > max:
		c.Fail("maxItems", "must have at most "+strconv.Itoa(max)+" items")
	}
}

// Pattern checks a string against a regular expression.
func Pattern(c *valid.Collector, s string, re *regexp.Regexp) {
	if !re.MatchString(s) {
		c.Fail("pattern", "must match "+strconv.Quote(re.String()))
	}
}

// Enum checks a string against its allowed values.
func Enum(c *valid.Collector, s string, values ...string) {
	for _, v := range values {
		if s == v {
			return
		}
	}
	msg := "must be one of"
	for i, v := range values {
		if i > 0 {
			msg += ","
		}
		msg += " " + strconv.Quote(v)
	}
	c.Fail("enum", msg)
}

// Format checks a string format the schema declares (uri, date, date-time).
func Format(c *valid.Collector, s, format string) {
	ok := true
	switch format {
	case "uri":
		ok = valid.URI(s)
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		ok = err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339Nano, s)
		ok = err == nil
	}
	if !ok {
		c.Fail("format", "must be a "+format)
	}
}

// Unknown records a member the schema does not allow.
func Unknown(c *valid.Collector, name string) {
	c.FailMember(name, "additionalProperties", "unknown member")
}

// Required records a required member that is missing.
func Required(c *valid.Collector, name string) {
	c.FailMember(name, "required", "required")
}

// NoArguments checks the arguments of a tool that takes none: an object
// without members.
func NoArguments(d *wire.Decoder, c *valid.Collector) error {
	if ok, err := Object(d, c); !ok || err != nil {
		return err
	}
	return d.Object(func(key []byte) error {
		Unknown(c, string(key))
		return d.Skip()
	})
}

// Structured is the result of a tool whose result e holds as JSON:
// structuredContent, and the same JSON as a text block for clients that
// read only content (as the tools specification asks).
func Structured(e *wire.Encoder) (*Result, error) {
	if err := e.Err(); err != nil {
		return nil, err
	}
	r := TextResult("")
	// The text block and structuredContent share one copy of the JSON.
	r.Structured = append(wire.Raw(nil), e.Bytes()...)
	r.Content[0].raw = r.Structured
	return r, nil
}

// Arguments are a call's arguments to decode: absent ones are an empty
// object.
func Arguments(args wire.Raw) wire.Raw {
	if len(args) == 0 {
		return emptyObject
	}
	return args
}

var emptyObject = wire.Raw("{}")
