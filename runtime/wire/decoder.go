package wire

import (
	"encoding/binary"
	"strconv"
	"unsafe"
)

// DefaultMaxDepth is the default limit on nested arrays and objects.
const DefaultMaxDepth = 1000

// Decoder reads JSON values from a complete byte slice, in place.
//
// Each method first skips whitespace, then consumes exactly one value. On a
// *TypeError nothing is consumed and on a *ValueError the value is; after a
// *SyntaxError the position is unspecified (decoding is meant to stop at the
// first error). Byte slices it returns may alias the
// input or the decoder's scratch space; see each method. The input is never
// modified.
//
// The zero Decoder is ready to use after [Decoder.Reset]. A Decoder must not
// be used by several goroutines at once.
type Decoder struct {
	buf      []byte
	pos      int
	depth    int
	maxDepth int    // > 0 once there is input: NewDecoder, Reset and SetMaxDepth see to it
	scratch  []byte // unescaped StrBytes results
	keys     []byte // stack of unescaped object keys, see Object
	// shared makes Str and Raw return views of the input rather than
	// copies (see SetShared).
	shared bool
	// text is the free tail of the block that Str, Name and Raw copy into
	// when the input is not shared (see keep). Bytes once handed out are
	// never written again, so a decoder may keep the tail between inputs.
	text []byte
	// types are what the decoder remembers of the types it decoded
	// lists (List) and pointer members (New) of, see typeMemory: made
	// when the decoder is Reset after an input, so a decoder used once
	// remembers nothing.
	types *typeTable
}

// NewDecoder returns a decoder reading b.
func NewDecoder(b []byte) *Decoder {
	return &Decoder{buf: b, maxDepth: DefaultMaxDepth}
}

// Reset makes the decoder read b from the start, keeping its nesting limit,
// its scratch space and what it remembers of the types it decoded (see
// List and New), so a pooled decoder allocates little. A decoder
// remembers types from its second input on: one that reads a single
// input (a parser an HTTP request makes) makes no table for them.
func (d *Decoder) Reset(b []byte) {
	d.pos = 0
	d.depth = 0
	if d.types == nil && d.buf != nil {
		// Reused: from its second input on, a decoder remembers types.
		d.types = new(typeTable)
	}
	d.buf = b
	d.keys = d.keys[:0]
	if d.maxDepth <= 0 {
		d.maxDepth = DefaultMaxDepth // enter's fast path reads it
	}
}

// SetMaxDepth sets the limit on nested arrays and objects (a top-level array
// has depth 1); going deeper is a *SyntaxError. n <= 0 restores
// DefaultMaxDepth. Skip recurses once per level, so very large limits cost
// goroutine stack.
func (d *Decoder) SetMaxDepth(n int) {
	if n <= 0 {
		n = DefaultMaxDepth
	}
	d.maxDepth = n
}

// Offset returns the current byte offset in the input.
func (d *Decoder) Offset() int { return d.pos }

// ws skips whitespace, stores and returns the new position.
func (d *Decoder) ws() int {
	i := skipSpace(d.buf, d.pos)
	d.pos = i
	return i
}

// enter records one more level of nesting for the container at offset off.
// Small enough to inline into Object and Array; the error is tooDeep's.
func (d *Decoder) enter(off int) error {
	d.depth++
	if d.depth > d.maxDepth {
		return d.tooDeep(off)
	}
	return nil
}

// tooDeep is enter's error past maxDepth.
//
//go:noinline
func (d *Decoder) tooDeep(off int) error {
	return syntaxErr(off, "exceeded maximum nesting depth of "+strconv.Itoa(d.maxDepth))
}

// mismatch builds the error for a value at i that is not the wanted kind: a
// *TypeError for a well-formed value of another kind, else a *SyntaxError.
func (d *Decoder) mismatch(i int, want string) error {
	if i >= len(d.buf) {
		return syntaxErr(i, "unexpected end of input, expected "+want)
	}
	k := kindOf[d.buf[i]]
	if k == Invalid {
		return errValueStart(d.buf, i)
	}
	return &TypeError{Offset: i, Expected: want, Found: k}
}

// Peek skips whitespace and returns the kind of the next value without
// consuming it: Invalid at end of input or on a byte that cannot start a
// value. The kind is judged from the first byte only.
func (d *Decoder) Peek() Kind {
	i := d.ws()
	if i >= len(d.buf) {
		return Invalid
	}
	return kindOf[d.buf[i]]
}

// Object consumes an object, calling fn for each member in input order
// (duplicate names included). key is the unescaped member name; it is valid
// only until fn returns. fn must consume the member's value, by decoding it or
// calling Skip; returning nil without consuming it is an error. An error from
// fn is returned unchanged.
func (d *Decoder) Object(fn func(key []byte) error) error {
	buf := d.buf
	i := d.ws()
	if i >= len(buf) || buf[i] != '{' {
		return d.mismatch(i, "object")
	}
	if err := d.enter(i); err != nil {
		return err
	}
	i = skipSpace(buf, i+1)
	if i < len(buf) && buf[i] == '}' {
		d.pos = i + 1
		d.depth--
		return nil
	}
	for {
		if i >= len(buf) || buf[i] != '"' {
			return errExpected(buf, i, "string for object key")
		}
		at := i // the key's opening quote
		// scanString, with its common case inlined: most names are
		// plain ASCII that firstSpecial crosses to the closing quote.
		end, escaped := firstSpecial(buf, i+1), false
		if end < 0 || buf[end] != '"' {
			var err error
			if end, escaped, err = scanStringRest(buf, end); err != nil {
				return err
			}
		}
		// buf[i+1:end] without its checks: end is the index of the
		// key's closing quote, after i and inside buf.
		key := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(buf)), i+1)), end-i-1)
		// Escaped keys are unescaped onto a stack rather than into scratch:
		// fn may decode strings (and nested objects) while key must stay
		// intact. Growing the stack reallocates, but earlier keys keep
		// pointing at the old array, which is no longer written to.
		mark := 0
		if escaped {
			mark = len(d.keys)
			d.keys = unescape(d.keys, key)
			key = d.keys[mark:]
		}
		i = skipSpace(buf, end+1)
		if i >= len(buf) || buf[i] != ':' {
			return errExpected(buf, i, "':' after object key")
		}
		i = skipSpace(buf, i+1)
		d.pos = i
		if err := fn(key); err != nil {
			return err
		}
		if d.pos == i {
			// The key again, from its quote: key itself is not kept
			// past fn (three fewer values saved across each call).
			return errMemberNotConsumed(buf, at, i)
		}
		if escaped {
			// fn left the stack as it found it: only this key to pop.
			d.keys = d.keys[:mark]
		}
		i = skipSpace(buf, d.pos)
		if i < len(buf) {
			switch buf[i] {
			case ',':
				i = skipSpace(buf, i+1)
				continue
			case '}':
				d.pos = i + 1
				d.depth--
				return nil
			}
		}
		return errExpected(buf, i, "',' or '}' after object member")
	}
}

// Array consumes an array, calling fn once per element; fn must consume the
// element (returning nil without doing so is an error). An error from fn is
// returned unchanged.
func (d *Decoder) Array(fn func() error) error {
	buf := d.buf
	i := d.ws()
	if i >= len(buf) || buf[i] != '[' {
		return d.mismatch(i, "array")
	}
	if err := d.enter(i); err != nil {
		return err
	}
	i = skipSpace(buf, i+1)
	if i < len(buf) && buf[i] == ']' {
		d.pos = i + 1
		d.depth--
		return nil
	}
	for {
		d.pos = i
		if err := fn(); err != nil {
			return err
		}
		if d.pos == i {
			return errNotConsumed(i, "array element")
		}
		i = skipSpace(buf, d.pos)
		if i < len(buf) {
			switch buf[i] {
			case ',':
				i = skipSpace(buf, i+1)
				continue
			case ']':
				d.pos = i + 1
				d.depth--
				return nil
			}
		}
		return errExpected(buf, i, "',' or ']' after array element")
	}
}

// errNotConsumed reports a callback that returned nil without consuming its
// value: a bug in the caller, not in the input. Not inlined (errExpected
// says why).
//
//go:noinline
func errNotConsumed(off int, what string) error {
	return &UsageError{Offset: off, Msg: "wire: callback returned without consuming the value of " + what}
}

// errMemberNotConsumed is errNotConsumed for the value at off of the object
// member whose key's opening quote is buf[at] (the key is read again and
// quoted here, not in Object's frame).
//
//go:noinline
func errMemberNotConsumed(buf []byte, at, off int) error {
	end, escaped, err := scanString(buf, at+1)
	if err != nil { // not reached: Object scanned this key before
		return errNotConsumed(off, "object member")
	}
	key := buf[at+1 : end]
	if escaped {
		key = unescape(nil, key)
	}
	return errNotConsumed(off, "object member "+strconv.Quote(string(key)))
}

// UsageError reports a Decoder used against its contract, such as an Object
// or Array callback that did not consume its value. It indicates a bug in the
// calling code, not bad input.
type UsageError struct {
	Offset int
	Msg    string
}

// Error implements error.
func (e *UsageError) Error() string { return e.Msg }

// StrBytes consumes a string and returns its unescaped bytes. The result
// aliases the input (no escapes) or the decoder's scratch space (escapes); it
// is valid until the next call on the decoder and must not be modified.
func (d *Decoder) StrBytes() ([]byte, error) {
	buf := d.buf
	i := d.ws()
	if i >= len(buf) || buf[i] != '"' {
		return nil, d.mismatch(i, "string")
	}
	// scanString with its common case inlined, as in Object.
	end, escaped := firstSpecial(buf, i+1), false
	if end < 0 || buf[end] != '"' {
		var err error
		if end, escaped, err = scanStringRest(buf, end); err != nil {
			return nil, err
		}
	}
	d.pos = end + 1
	if !escaped {
		return buf[i+1 : end], nil
	}
	d.scratch = unescape(d.scratch[:0], buf[i+1:end])
	return d.scratch, nil
}

// Str consumes a string and returns it unescaped: a copy, cut from a block
// the decoder shares among the short strings and raw values it copies, unless
// the decoder shares its input (SetShared) and the string has no escapes:
// then it is a view of the input.
func (d *Decoder) Str() (string, error) {
	// StrBytes spelled out: the decoders' most frequent call after Object.
	// A helper both share does not inline (cost 234) and costs 2 % of
	// wire's instructions on a tools/list page (callgrind).
	buf := d.buf
	i := d.ws()
	if i >= len(buf) || buf[i] != '"' {
		return "", d.mismatch(i, "string")
	}
	// scanString with its common case inlined, as in Object.
	end, escaped := firstSpecial(buf, i+1), false
	if end < 0 || buf[end] != '"' {
		var err error
		if end, escaped, err = scanStringRest(buf, end); err != nil {
			return "", err
		}
	}
	d.pos = end + 1
	if escaped {
		d.scratch = unescape(d.scratch[:0], buf[i+1:end])
		return d.keepString(d.scratch), nil
	}
	if d.shared && end > i+1 {
		return unsafe.String(&buf[i+1], end-i-1), nil
	}
	return d.keepString(buf[i+1 : end]), nil
}

// Copies of strings and raw values up to textAlone bytes are cut from
// blocks of at most textBlock bytes, one allocation for many values instead
// of one each; longer ones get an allocation of their own. A new block is
// no bigger than what is left of the input (the copies cannot outgrow it),
// so a one-off decode of a short value allocates about its size. A value
// kept alive keeps its block alive: at most textBlock bytes, which a reused
// (pooled) decoder may have shared with values of the inputs it decoded
// before.
const (
	textBlock = 4096
	textAlone = 256
)

// keep returns a copy of b that the caller owns, with no room to append in
// place.
func (d *Decoder) keep(b []byte) []byte {
	n := len(b)
	if n == 0 {
		return []byte{}
	}
	if n > textAlone {
		return append(make([]byte, 0, n), b...)
	}
	if n > cap(d.text)-len(d.text) {
		// What is left of the input after this value bounds the copies
		// still to come.
		d.text = make([]byte, 0, min(max(len(d.buf)-d.pos, 0)+n, textBlock))
	}
	start := len(d.text)
	d.text = append(d.text, b...)
	return d.text[start:len(d.text):len(d.text)]
}

// keepString is keep for a string.
func (d *Decoder) keepString(b []byte) string {
	n := len(b)
	if n == 0 {
		return ""
	}
	if start := len(d.text); n <= textAlone && n <= cap(d.text)-start {
		// keep's common case, with less to do: the copy fits the block,
		// and reslicing d.text itself stores only its length (no
		// pointer, so no write barrier).
		d.text = d.text[:start+n]
		copy(d.text[start:], b)
		return unsafe.String(&d.text[start], n)
	}
	k := d.keep(b)
	return unsafe.String(&k[0], len(k))
}

// SetShared tells the decoder that its input is never modified and lives
// as long as whatever is decoded from it: Str and Raw then return views of
// the input instead of copies, which saves an allocation per string and raw
// value. The runtime uses it for request params, which each request owns.
func (d *Decoder) SetShared(on bool) { d.shared = on }

// number consumes a number and returns its literal and offset.
func (d *Decoder) number(want string) (lit []byte, off int, isInt bool, err error) {
	buf := d.buf
	i := d.ws()
	if i >= len(buf) || kindOf[buf[i]] != Number {
		return nil, i, false, d.mismatch(i, want)
	}
	end, isInt, err := scanNumber(buf, i)
	if err != nil {
		return nil, i, false, err
	}
	d.pos = end
	return buf[i:end], i, isInt, nil
}

// Number consumes a number and returns its literal text, validated against
// the JSON grammar. The result aliases the input.
func (d *Decoder) Number() ([]byte, error) {
	lit, _, _, err := d.number("number")
	return lit, err
}

// Int64 consumes a number whose value is an integer that fits int64. Any
// JSON spelling of such a value is accepted (5, -5, 5.0, 5e2, 1.5e1); a value
// with a fractional part (1.5) or out of range (1e30) is a *ValueError.
func (d *Decoder) Int64() (int64, error) {
	if n, neg, ok := d.smallInt(18); ok { // 18 digits cannot overflow
		if neg {
			n = -n
		}
		return n, nil
	}
	lit, off, _, err := d.number("integer")
	if err != nil {
		return 0, err
	}
	return parseInt64Slow(off, lit)
}

// Float64 consumes a number and returns the nearest float64 (as
// strconv.ParseFloat). A value too large for float64 is a *ValueError.
func (d *Decoder) Float64() (float64, error) {
	lit, off, isInt, err := d.number("number")
	if err != nil {
		return 0, err
	}
	if isInt && len(lit) <= 15 { // below 2^53: exact
		neg := lit[0] == '-'
		k := 0
		if neg {
			k = 1
		}
		var n int64
		for ; k < len(lit); k++ {
			n = n*10 + int64(lit[k]-'0')
		}
		f := float64(n)
		if neg {
			f = -f // -0 for "-0"
		}
		return f, nil
	}
	// The literal is only read during the call, and ParseFloat copies it
	// into its error, so no copy is needed even for long literals.
	f, err := strconv.ParseFloat(unsafe.String(unsafe.SliceData(lit), len(lit)), 64)
	if err != nil {
		return 0, valueErrorf(off, lit, " is out of range for float64")
	}
	return f, nil
}

// smallInt is the one-pass fast path for the common number: an optional
// '-' and 1 to max digits without a leading zero, not followed by a
// fraction, an exponent or more digits. It consumes the number only if ok;
// anything else (including errors) is left to the general path. n is the
// magnitude; neg reports a minus sign.
func (d *Decoder) smallInt(max int) (n int64, neg, ok bool) {
	buf := d.buf
	i := d.ws()
	neg = i < len(buf) && buf[i] == '-'
	if neg {
		i++
	}
	start := i
	for i < len(buf) && i-start < max {
		c := buf[i] - '0'
		if c > 9 {
			break
		}
		n = n*10 + int64(c)
		i++
	}
	if i == start || (buf[start] == '0' && i-start > 1) || (i < len(buf) && numberCont[buf[i]]) {
		return 0, false, false
	}
	d.pos = i
	return n, neg, true
}

// numberCont marks the bytes that may continue a number after its digits.
var numberCont = [256]bool{'.': true, 'e': true, 'E': true,
	'0': true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true}

// Bool consumes true or false.
func (d *Decoder) Bool() (bool, error) {
	// Compact JSON has the literal at d.pos, followed by at least one byte
	// when it is a member or an element: four bytes compared at once;
	// whitespace, the end of the input and errors are boolRest's.
	buf, i := d.buf, d.pos
	if i >= 0 && i+5 <= len(buf) {
		switch binary.LittleEndian.Uint32(buf[i:]) {
		case 't' | 'r'<<8 | 'u'<<16 | 'e'<<24:
			d.pos = i + 4
			return true, nil
		case 'f' | 'a'<<8 | 'l'<<16 | 's'<<24:
			if buf[i+4] == 'e' {
				d.pos = i + 5
				return false, nil
			}
		}
	}
	return d.boolRest()
}

// boolRest is Bool after whitespace, for false, and for what is not a
// boolean.
//
//go:noinline
func (d *Decoder) boolRest() (bool, error) {
	buf := d.buf
	i := d.ws()
	if i < len(buf) {
		switch buf[i] {
		case 't':
			end, err := literal(buf, i, "true")
			if err != nil {
				return false, err
			}
			d.pos = end
			return true, nil
		case 'f':
			end, err := literal(buf, i, "false")
			if err != nil {
				return false, err
			}
			d.pos = end
			return false, nil
		}
	}
	return false, d.mismatch(i, "boolean")
}

// Null consumes null.
func (d *Decoder) Null() error {
	buf := d.buf
	i := d.ws()
	if i >= len(buf) || buf[i] != 'n' {
		return d.mismatch(i, "null")
	}
	end, err := literal(buf, i, "null")
	if err != nil {
		return err
	}
	d.pos = end
	return nil
}

// Skip consumes one value of any kind, validating it fully: string escapes
// and UTF-8, the number grammar, literals, structure and nesting depth.
func (d *Decoder) Skip() error {
	i := d.ws()
	end, err := d.skip(i)
	if err != nil {
		return err
	}
	d.pos = end
	return nil
}

// Raw consumes one value, validated as by Skip, and returns a copy of its
// exact text, which the caller owns.
func (d *Decoder) Raw() (Raw, error) {
	i := d.ws()
	end, err := d.skip(i)
	if err != nil {
		return nil, err
	}
	d.pos = end
	if d.shared {
		return Raw(d.buf[i:end:end]), nil
	}
	return Raw(d.keep(d.buf[i:end])), nil
}

// End reports an error unless only whitespace remains.
func (d *Decoder) End() error {
	i := d.ws()
	if i < len(d.buf) {
		return syntaxErr(i, "unexpected data after top-level value")
	}
	return nil
}

// skip validates the value at i and returns the index just past it.
func (d *Decoder) skip(i int) (int, error) {
	buf := d.buf
	if i >= len(buf) {
		return 0, errValueStart(buf, i)
	}
	switch buf[i] {
	case '"':
		end, _, err := scanString(buf, i+1)
		return end + 1, err
	case '{':
		return d.skipObject(i)
	case '[':
		return d.skipArray(i)
	case 't':
		return literal(buf, i, "true")
	case 'f':
		return literal(buf, i, "false")
	case 'n':
		return literal(buf, i, "null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		end, _, err := scanNumber(buf, i)
		return end, err
	}
	return 0, errValueStart(buf, i)
}

// Object, Array, skipObject and skipArray each spell out their loop:
// shared open/separator helpers are too big to inline and cost 10–14% on
// the decode benchmarks (BenchmarkUnmarshalCallTool, BenchmarkSkip10K).
func (d *Decoder) skipObject(i int) (int, error) {
	buf := d.buf
	if err := d.enter(i); err != nil {
		return 0, err
	}
	i = skipSpace(buf, i+1)
	if i < len(buf) && buf[i] == '}' {
		d.depth--
		return i + 1, nil
	}
	for {
		if i >= len(buf) || buf[i] != '"' {
			return 0, errExpected(buf, i, "string for object key")
		}
		// scanString's common case inlined, as in Object.
		end := firstSpecial(buf, i+1)
		if end < 0 || buf[end] != '"' {
			var err error
			if end, _, err = scanStringRest(buf, end); err != nil {
				return 0, err
			}
		}
		i = skipSpace(buf, end+1)
		if i >= len(buf) || buf[i] != ':' {
			return 0, errExpected(buf, i, "':' after object key")
		}
		// Most members of raw objects (tool arguments, schemas) are
		// strings: scanned here rather than through skip.
		var err error
		if i = skipSpace(buf, i+1); i < len(buf) && buf[i] == '"' {
			if end = firstSpecial(buf, i+1); end < 0 || buf[end] != '"' {
				end, _, err = scanStringRest(buf, end)
			}
			i = end + 1
		} else {
			i, err = d.skip(i)
		}
		if err != nil {
			return 0, err
		}
		i = skipSpace(buf, i)
		if i < len(buf) {
			switch buf[i] {
			case ',':
				i = skipSpace(buf, i+1)
				continue
			case '}':
				d.depth--
				return i + 1, nil
			}
		}
		return 0, errExpected(buf, i, "',' or '}' after object member")
	}
}

func (d *Decoder) skipArray(i int) (int, error) {
	buf := d.buf
	if err := d.enter(i); err != nil {
		return 0, err
	}
	i = skipSpace(buf, i+1)
	if i < len(buf) && buf[i] == ']' {
		d.depth--
		return i + 1, nil
	}
	for {
		var err error
		if i, err = d.skip(i); err != nil {
			return 0, err
		}
		i = skipSpace(buf, i)
		if i < len(buf) {
			switch buf[i] {
			case ',':
				i = skipSpace(buf, i+1)
				continue
			case ']':
				d.depth--
				return i + 1, nil
			}
		}
		return 0, errExpected(buf, i, "',' or ']' after array element")
	}
}
