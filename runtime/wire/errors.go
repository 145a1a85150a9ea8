package wire

import (
	"errors"
	"strconv"
	"strings"
)

// SyntaxError reports malformed JSON: the input is not one valid JSON text
// (this includes invalid UTF-8 and exceeding the decoder's nesting limit).
// A JSON-RPC server answers it with -32700 (parse error).
type SyntaxError struct {
	Offset int    // byte offset in the input where the problem was detected
	Msg    string // description, without the offset
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return "syntax error at offset " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// TypeError reports well-formed JSON whose value has the wrong kind for the
// Go value being decoded, e.g. a number where a string was expected.
type TypeError struct {
	Offset   int    // byte offset of the value
	Expected string // what the decoder wanted, e.g. "string" or "string or integer"
	Found    Kind   // what the input holds
}

// Error implements error: "expected string, found number".
func (e *TypeError) Error() string {
	return "expected " + e.Expected + ", found " + e.Found.String()
}

// ValueError reports a value of the right kind that the Go type cannot hold,
// e.g. 1.5 for an integer or 1e30 for an int64.
type ValueError struct {
	Offset int    // byte offset of the value
	Msg    string // description
}

// Error implements error.
func (e *ValueError) Error() string { return e.Msg }

// PathError wraps an error with the JSON Pointer (RFC 6901) of the value
// where it happened. It is created by [WithField] and [WithIndex].
type PathError struct {
	Pointer string // e.g. "/params/arguments/0"
	Err     error
}

// Error implements error: "<pointer>: <err>".
func (e *PathError) Error() string { return e.Pointer + ": " + e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *PathError) Unwrap() error { return e.Err }

// WithField prepends the object member name to err's JSON Pointer. A nil err
// returns nil, so generated code can wrap unconditionally; otherwise an err
// that is already a *PathError is updated in place (one string concatenation
// per level of unwinding) and anything else is wrapped in a new *PathError.
func WithField(err error, name string) error {
	if err == nil {
		return nil
	}
	return prepend(err, escapeToken(name))
}

// WithIndex prepends the array index to err's JSON Pointer, like [WithField].
func WithIndex(err error, i int) error {
	if err == nil {
		return nil
	}
	return prepend(err, strconv.Itoa(i))
}

func prepend(err error, token string) error {
	// Only a direct *PathError is extended: one buried under another wrapper
	// would be out of sync with that wrapper's already formatted message.
	if pe, ok := err.(*PathError); ok {
		pe.Pointer = "/" + token + pe.Pointer
		return pe
	}
	return &PathError{Pointer: "/" + token, Err: err}
}

// escapeToken escapes a reference token per RFC 6901: '~' as "~0", '/' as "~1".
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return tokenEscaper.Replace(s)
}

var tokenEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// Pointer returns the JSON Pointer carried by err: that of the first
// [*PathError] in its chain (errors.As), or "" if there is none. Because
// [WithField] and [WithIndex] extend an existing *PathError rather than
// nesting a new one, that is the full path from the document root.
func Pointer(err error) string {
	var pe *PathError
	if errors.As(err, &pe) {
		return pe.Pointer
	}
	return ""
}

// describe names the input at i for an error message: a quoted character or
// "end of input".
func describe(buf []byte, i int) string {
	if i >= len(buf) {
		return "end of input"
	}
	return quoteChar(buf[i])
}

func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c >= 0x20 && c < 0x7f:
		return "'" + string(rune(c)) + "'"
	}
	return "byte 0x" + string([]byte{hexDigits[c>>4], hexDigits[c&0xf]})
}

const hexDigits = "0123456789abcdef"

func syntaxErr(off int, msg string) error { return &SyntaxError{Offset: off, Msg: msg} }

// errExpected is the syntax error for a missing structural character.
// Not inlined: its message's temporaries would enlarge the stack frame of
// every decoding function that can fail this way (Object, on every level of
// nesting), and a frame grown past the goroutine's stack costs a stack copy.
//
//go:noinline
func errExpected(buf []byte, i int, what string) error {
	return syntaxErr(i, "expected "+what+", found "+describe(buf, i))
}

// errValueStart is the syntax error for input at i that cannot begin a value.
func errValueStart(buf []byte, i int) error {
	if i >= len(buf) {
		return syntaxErr(i, "unexpected end of input, expected a value")
	}
	return syntaxErr(i, "invalid character "+quoteChar(buf[i])+" looking for beginning of value")
}
