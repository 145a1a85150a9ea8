package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// This file holds the byte-level scanners shared by the Decoder methods. They
// are plain functions over (buf, index) so the hot loops keep their state in
// registers rather than in the Decoder.

// skipSpace returns the index of the first non-whitespace byte at or after i.
func skipSpace(buf []byte, i int) int {
	for i < len(buf) {
		c := buf[i]
		// Most calls stop at once on a structural byte or a value.
		if c > ' ' || (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
			return i
		}
		i++
	}
	return i
}

// plain[c] reports whether byte c may stand in a JSON string as itself with
// no further attention: printable ASCII other than '"' and '\\' (DEL included,
// as encoding/json does). The encoder uses the same table for its no-escape
// fast path.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// specialMask tests eight string bytes at once (SWAR). The result is zero iff
// every byte is plain; otherwise its lowest set bit is the high bit of the
// first non-plain byte (a control character, '"', '\\' or a non-ASCII byte).
// Each term is the classic "has byte less than n" / "has zero byte" test;
// their borrows only propagate upward from a true hit, so the lowest hit is
// exact. '"' and '\\' are below 0x80, so x^q and x share their high bits and
// one &^x serves all three tests.
func specialMask(x uint64) uint64 {
	t := (x - lsb*0x20) | ((x ^ lsb*'"') - lsb) | ((x ^ lsb*'\\') - lsb)
	return (t&^x | x) & msb
}

// skipPlain returns the index of the first non-plain byte at or after i.
func skipPlain(buf []byte, i int) int {
	e := firstSpecial(buf, i)
	if e >= 0 {
		return e
	}
	i = ^e
	for i < len(buf) && plain[buf[i]] {
		i++
	}
	return i
}

// firstSpecial looks at buf from i eight bytes at a time: it returns the
// index of the first non-plain byte it finds, or, when fewer than eight
// bytes are left before finding one, ^j (negative) for the index j where
// they start. Small enough to inline: Object, Str, StrBytes and skipObject
// do, for member names and string values.
func firstSpecial(buf []byte, i int) int {
	p := unsafe.Pointer(unsafe.SliceData(buf))
	for ; i+8 <= len(buf); i += 8 {
		if m := specialMask(load8(p, i)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	return ^i
}

// load8 returns the eight bytes at p+i as a little-endian word. The
// scanners call it with 0 <= i and i+8 <= len(buf), p buf's first byte,
// which their loop conditions check (i is never negative: it follows an
// opening quote or a byte already read); it spares each eight bytes the
// bounds checks and the slice that binary.LittleEndian.Uint64(buf[i:])
// costs, about a third of the loop (a plain load on little-endian
// machines).
func load8(p unsafe.Pointer, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(p, i))[:])
}

// scanString validates the string whose body starts at i (just past the
// opening quote). It returns the index of the closing quote and whether the
// body holds escapes. It checks escapes, control characters and UTF-8, so a
// string it accepts can be unescaped without further checks.
//
// Most strings in MCP messages are member names and short values of plain
// ASCII: firstSpecial finds their closing quote eight bytes at a time;
// everything else (escapes, non-ASCII, errors, the last bytes of the
// input) goes on in scanStringRest.
func scanString(buf []byte, i int) (end int, escaped bool, err error) {
	e := firstSpecial(buf, i)
	if e >= 0 && buf[e] == '"' {
		return e, false, nil
	}
	return scanStringRest(buf, e)
}

// scanStringRest is scanString from i, a byte that needs attention or the
// last bytes of the input (the body before i is plain). A negative i is
// firstSpecial's ^j for the last bytes at j.
//
//go:noinline
func scanStringRest(buf []byte, i int) (end int, escaped bool, err error) {
	if i < 0 {
		i = ^i
	}
	for {
		i = skipPlain(buf, i)
		if i >= len(buf) {
			return 0, false, syntaxErr(i, "unexpected end of input in string")
		}
		switch c := buf[i]; {
		case c == '"':
			return i, escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(buf) {
				return 0, false, syntaxErr(i+1, "unexpected end of input in string escape")
			}
			switch buf[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(buf) || !isHex4(buf[i+2:i+6]) {
					return 0, false, syntaxErr(i, `invalid \u escape in string: want four hex digits`)
				}
				i += 6
			default:
				return 0, false, syntaxErr(i, "invalid escape sequence '\\"+string(rune(buf[i+1]))+"' in string")
			}
		case c < 0x20:
			return 0, false, syntaxErr(i, "invalid control character "+quoteChar(c)+" in string (must be escaped)")
		default: // non-ASCII
			r, size := utf8.DecodeRune(buf[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false, syntaxErr(i, "invalid UTF-8 in string")
			}
			i += size
		}
	}
}

func isHex4(b []byte) bool {
	return hexVal[b[0]] >= 0 && hexVal[b[1]] >= 0 && hexVal[b[2]] >= 0 && hexVal[b[3]] >= 0
}

var hexVal = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = int8(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = int8(c - 'a' + 10)
		t[c-'a'+'A'] = int8(c - 'a' + 10)
	}
	return t
}()

// hex4 decodes four hex digits already checked by isHex4.
func hex4(b []byte) rune {
	return rune(hexVal[b[0]])<<12 | rune(hexVal[b[1]])<<8 | rune(hexVal[b[2]])<<4 | rune(hexVal[b[3]])
}

var unescapeByte = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// unescape appends the decoded form of a string body already validated by
// scanString. Like encoding/json, a \u escape naming a lone UTF-16 surrogate
// (a high one not followed by a low one, or a stray low one) decodes to
// U+FFFD rather than failing: JSON allows such escapes but UTF-8 cannot carry
// them.
func unescape(dst, s []byte) []byte {
	for {
		j := bytes.IndexByte(s, '\\')
		if j < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:j]...)
		if s[j+1] != 'u' {
			dst = append(dst, unescapeByte[s[j+1]])
			s = s[j+2:]
			continue
		}
		r := hex4(s[j+2:])
		s = s[j+6:]
		if utf16.IsSurrogate(r) {
			r2 := rune(-1)
			if len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
				r2 = hex4(s[2:])
			}
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				r = dec
				s = s[6:]
			} else {
				// Leave a following escape alone: it is decoded on its own.
				r = utf8.RuneError
			}
		}
		dst = utf8.AppendRune(dst, r)
	}
}

func isDigit(c byte) bool { return c-'0' < 10 }

// scanNumber validates the number starting at i (a '-' or digit) per the
// RFC 8259 grammar and returns the index just past it. isInt reports a
// literal with neither fraction nor exponent.
func scanNumber(buf []byte, i int) (end int, isInt bool, err error) {
	if buf[i] == '-' {
		i++
	}
	switch {
	case i >= len(buf) || !isDigit(buf[i]):
		return 0, false, syntaxErr(i, "invalid number: expected digit after '-', found "+describe(buf, i))
	case buf[i] == '0':
		i++
		if i < len(buf) && isDigit(buf[i]) {
			return 0, false, syntaxErr(i-1, "invalid number: leading zero")
		}
	default:
		i++
		for i < len(buf) && isDigit(buf[i]) {
			i++
		}
	}
	isInt = true
	if i < len(buf) && buf[i] == '.' {
		isInt = false
		i++
		if i >= len(buf) || !isDigit(buf[i]) {
			return 0, false, syntaxErr(i, "invalid number: expected digit after decimal point, found "+describe(buf, i))
		}
		for i < len(buf) && isDigit(buf[i]) {
			i++
		}
	}
	if i < len(buf) && buf[i]|0x20 == 'e' {
		isInt = false
		i++
		if i < len(buf) && (buf[i] == '+' || buf[i] == '-') {
			i++
		}
		if i >= len(buf) || !isDigit(buf[i]) {
			return 0, false, syntaxErr(i, "invalid number: expected digit in exponent, found "+describe(buf, i))
		}
		for i < len(buf) && isDigit(buf[i]) {
			i++
		}
	}
	return i, isInt, nil
}

// literal checks that buf holds lit (true, false or null) at i.
func literal(buf []byte, i int, lit string) (int, error) {
	if len(buf)-i >= len(lit) && string(buf[i:i+len(lit)]) == lit {
		return i + len(lit), nil
	}
	return 0, syntaxErr(i, "invalid literal, expected "+lit)
}
