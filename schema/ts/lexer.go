package ts

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tString
	tNumber
	tPunct
)

// token is one lexical token. Comments are not tokens: the last JSDoc
// comment before a token is carried in doc.
type token struct {
	kind     tokKind
	text     string  // identifier, punctuation, or raw source of a literal
	str      string  // tString: decoded value
	num      float64 // tNumber: value
	pos      Pos
	nlBefore bool   // a line break separates this token from the previous one
	doc      string // raw text of the last /** */ comment before the token
	hasDoc   bool
}

// describe names the token for error messages.
func (t *token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return "string " + shorten(t.text)
	case tNumber:
		return "number " + shorten(t.text)
	}
	return "'" + shorten(t.text) + "'"
}

func shorten(s string) string {
	if len(s) > 32 {
		i := 29
		for i > 0 && !utf8.RuneStart(s[i]) {
			i--
		}
		return s[:i] + "..."
	}
	return s
}

const punctChars = "{}()[]<>,;:?|&=.-"

type lexer struct {
	file      string
	src       []byte
	off       int
	line      int
	lineStart int
}

func (lx *lexer) pos(off int) Pos {
	// off is always on the current line when called.
	return Pos{File: lx.file, Line: lx.line, Col: off - lx.lineStart + 1}
}

func (lx *lexer) errorf(p Pos, format string, args ...any) error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// advance moves past n bytes, tracking line starts.
func (lx *lexer) advance(n int) {
	for end := lx.off + n; lx.off < end; lx.off++ {
		if lx.src[lx.off] == '\n' {
			lx.line++
			lx.lineStart = lx.off + 1
		}
	}
}

// lex splits src into tokens; the result always ends with a tEOF token.
func lex(file string, src []byte) ([]token, error) {
	lx := &lexer{file: file, src: src, line: 1}
	var toks []token
	nl := true
	var doc string
	hasDoc := false
	for {
		// Skip white space and comments.
		for lx.off < len(src) {
			c := src[lx.off]
			if c == '\n' {
				nl = true
				lx.advance(1)
				continue
			}
			if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
				lx.advance(1)
				continue
			}
			if r, n := utf8.DecodeRune(src[lx.off:]); r == '\uFEFF' || r == '\u00A0' || r == '\u2028' || r == '\u2029' {
				if r == '\u2028' || r == '\u2029' {
					nl = true
				}
				lx.advance(n)
				continue
			}
			if c == '/' && lx.off+1 < len(src) && src[lx.off+1] == '/' {
				i := lx.off
				for i < len(src) && src[i] != '\n' {
					i++
				}
				lx.advance(i - lx.off)
				continue
			}
			if c == '/' && lx.off+1 < len(src) && src[lx.off+1] == '*' {
				start := lx.off
				p := lx.pos(start)
				end := bytes.Index(src[start+2:], []byte("*/"))
				if end < 0 {
					return nil, lx.errorf(p, "unterminated comment")
				}
				end += start + 4
				text := string(src[start:end])
				if strings.HasPrefix(text, "/**") && text != "/**/" {
					doc, hasDoc = text, true
				}
				if strings.Contains(text, "\n") {
					nl = true
				}
				lx.advance(end - start)
				continue
			}
			break
		}
		t := token{pos: lx.pos(lx.off), nlBefore: nl, doc: doc, hasDoc: hasDoc}
		if lx.off >= len(src) {
			t.kind = tEOF
			toks = append(toks, t)
			return toks, nil
		}
		if err := lx.scan(&t); err != nil {
			return nil, err
		}
		toks = append(toks, t)
		nl, doc, hasDoc = false, "", false
	}
}

func isIdentStart(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r)
}

func isIdentPart(r rune) bool {
	return isIdentStart(r) || unicode.IsDigit(r) || r == '\u200C' || r == '\u200D'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scan reads one token starting at lx.off into t.
func (lx *lexer) scan(t *token) error {
	src := lx.src
	start := lx.off
	c := src[start]
	switch {
	case c == '"' || c == '\'':
		return lx.scanString(t)
	case isDigit(c),
		c == '.' && start+1 < len(src) && isDigit(src[start+1]),
		c == '-' && start+1 < len(src) && (isDigit(src[start+1]) ||
			src[start+1] == '.' && start+2 < len(src) && isDigit(src[start+2])):
		return lx.scanNumber(t)
	case strings.IndexByte(punctChars, c) >= 0:
		t.kind, t.text = tPunct, string(c)
		lx.advance(1)
		return nil
	}
	r, n := utf8.DecodeRune(src[start:])
	if !isIdentStart(r) {
		if r == utf8.RuneError && n == 1 {
			return lx.errorf(t.pos, "invalid UTF-8 byte 0x%02x", c)
		}
		return lx.errorf(t.pos, "unexpected character %q", r)
	}
	i := start + n
	for i < len(src) {
		r, n := utf8.DecodeRune(src[i:])
		if !isIdentPart(r) {
			break
		}
		i += n
	}
	t.kind, t.text = tIdent, string(src[start:i])
	lx.advance(i - start)
	return nil
}

func (lx *lexer) scanNumber(t *token) error {
	src := lx.src
	start := lx.off
	i := start
	if src[i] == '-' {
		i++
	}
	digits := func() {
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	prefixed := false
	if src[i] == '0' && i+1 < len(src) && strings.IndexByte("xXoObB", src[i+1]) >= 0 {
		prefixed = true
		i += 2
		for i < len(src) && (isDigit(src[i]) || strings.IndexByte("abcdefABCDEF", src[i]) >= 0) {
			i++
		}
	} else {
		digits()
		if i < len(src) && src[i] == '.' {
			i++
			digits()
		}
		if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
			i++
			if i < len(src) && (src[i] == '+' || src[i] == '-') {
				i++
			}
			digits()
		}
	}
	if i < len(src) {
		if r, _ := utf8.DecodeRune(src[i:]); isIdentPart(r) || r == '.' {
			return lx.errorf(t.pos, "invalid number literal %s", shorten(string(src[start:i+1])))
		}
	}
	raw := string(src[start:i])
	var v float64
	var err error
	if prefixed {
		var n int64
		n, err = strconv.ParseInt(raw, 0, 64)
		v = float64(n)
	} else {
		v, err = strconv.ParseFloat(raw, 64)
	}
	if err != nil {
		return lx.errorf(t.pos, "invalid number literal %s", shorten(raw))
	}
	t.kind, t.text, t.num = tNumber, raw, v
	lx.advance(i - start)
	return nil
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func (lx *lexer) scanString(t *token) error {
	src := lx.src
	start := lx.off
	q := src[start]
	var b strings.Builder
	i := start + 1
	pending := rune(-1) // a high surrogate from a \u escape awaiting its pair
	flush := func() {
		if pending >= 0 {
			b.WriteRune(utf8.RuneError)
			pending = -1
		}
	}
	writeCode := func(r rune) {
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00:
			flush()
			pending = r
		case utf16.IsSurrogate(r):
			if pending >= 0 {
				b.WriteRune(utf16.DecodeRune(pending, r))
				pending = -1
			} else {
				b.WriteRune(utf8.RuneError)
			}
		default:
			flush()
			b.WriteRune(r)
		}
	}
	unterminated := func() error { return lx.errorf(t.pos, "unterminated string literal") }
	for {
		if i >= len(src) || src[i] == '\n' || src[i] == '\r' {
			return unterminated()
		}
		c := src[i]
		if c == q {
			i++
			break
		}
		if c != '\\' {
			flush()
			_, n := utf8.DecodeRune(src[i:])
			b.Write(src[i : i+n])
			i += n
			continue
		}
		// Escape sequence.
		i++
		if i >= len(src) {
			return unterminated()
		}
		e := src[i]
		i++
		switch e {
		case 'n':
			writeCode('\n')
		case 't':
			writeCode('\t')
		case 'r':
			writeCode('\r')
		case 'b':
			writeCode('\b')
		case 'f':
			writeCode('\f')
		case 'v':
			writeCode('\v')
		case '0':
			writeCode(0)
		case '\r':
			if i < len(src) && src[i] == '\n' {
				i++
			}
		case '\n':
			// line continuation
		case 'x', 'u':
			var v rune
			switch {
			case e == 'x':
				if i+2 > len(src) || hexVal(src[i]) < 0 || hexVal(src[i+1]) < 0 {
					return lx.errorf(t.pos, "invalid \\x escape in string literal")
				}
				v = rune(hexVal(src[i])<<4 | hexVal(src[i+1]))
				i += 2
			case i < len(src) && src[i] == '{':
				j := i + 1
				for j < len(src) && hexVal(src[j]) >= 0 && v <= unicode.MaxRune {
					v = v<<4 | rune(hexVal(src[j]))
					j++
				}
				if j == i+1 || j >= len(src) || src[j] != '}' || v > unicode.MaxRune {
					return lx.errorf(t.pos, "invalid \\u{...} escape in string literal")
				}
				i = j + 1
			default:
				if i+4 > len(src) {
					return lx.errorf(t.pos, "invalid \\u escape in string literal")
				}
				for k := 0; k < 4; k++ {
					h := hexVal(src[i+k])
					if h < 0 {
						return lx.errorf(t.pos, "invalid \\u escape in string literal")
					}
					v = v<<4 | rune(h)
				}
				i += 4
			}
			writeCode(v)
		default:
			// Any other escaped character stands for itself.
			i--
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n == 1 {
				flush()
				b.WriteByte(src[i])
			} else {
				writeCode(r)
			}
			i += n
		}
	}
	flush()
	t.kind, t.text, t.str = tString, string(src[start:i]), b.String()
	lx.advance(i - start)
	return nil
}
