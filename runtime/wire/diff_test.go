package wire

// Differential tests against encoding/json.

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// stdString is encoding/json's encoding of s without HTML escaping.
func stdString(t testing.TB, s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// stdFloat is encoding/json's encoding of f.
func stdFloat(t testing.TB, f float64) string {
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stringCorpus returns hand-picked tricky strings plus random ones (random
// bytes, including invalid UTF-8, and random runes).
func stringCorpus() []string {
	c := []string{
		"", "a", "plain ascii text", `"quoted"`, `back\slash`, "<script>&amp;</script>",
		"\x00\x01\x02\x1f\x7f", "\b\f\n\r\t", "tab\there", "é", "世界", "😀", "\u2028\u2029",
		"\uFFFD", "\xff", "\xc3", "\xc3\x28", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80",
		"\xc0\xaf", "a\xffb\xfe", strings.Repeat("x", 100) + "\xff", strings.Repeat("é", 50),
		"12345678\"12345678\\", "\x7f\x80", "/", "\u0080\u07ff\u0800\uffff\U00010000\U0010ffff",
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune{'a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\t', 0, 0x1f, 0x7f, 'é', '€', '世',
		'\u2028', '\u2029', '\uFFFD', 0x1F600, 0x10FFFF, '<', '>', '&'}
	for i := 0; i < 3000; i++ {
		n := r.IntN(40)
		if i%2 == 0 {
			b := make([]byte, n)
			for j := range b {
				b[j] = byte(r.IntN(256))
			}
			c = append(c, string(b))
		} else {
			rs := make([]rune, n)
			for j := range rs {
				rs[j] = alphabet[r.IntN(len(alphabet))]
			}
			c = append(c, string(rs))
		}
	}
	return c
}

func TestDiffStringEncode(t *testing.T) {
	for _, s := range stringCorpus() {
		var e Encoder
		e.Str(s)
		if got, want := string(e.Bytes()), stdString(t, s); got != want {
			t.Errorf("Str(%q) = %s, encoding/json %s", s, got, want)
		}
	}
}

// allEscaped writes s as a JSON string with every rune as \u escapes (UTF-16
// surrogate pairs above the BMP).
func allEscaped(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			hex4To(&b, 0xD800+(r>>10))
			hex4To(&b, 0xDC00+(r&0x3ff))
			continue
		}
		hex4To(&b, r)
	}
	b.WriteByte('"')
	return b.String()
}

func hex4To(b *strings.Builder, r rune) {
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}

// literalCorpus is string literals with escapes that encoders do not produce.
var literalCorpus = []string{
	`"\uD83D\uDE00"`, `"\ud83d\ude00"`, `"\uD83D"`, `"\uDE00"`, `"\uDE00\uD83D"`, `"\uD83Dx"`,
	`"\uD83D\u0041"`, `"\uD83D\uD83D\uDE00"`, `"\uD83D\n"`, `"\uDBFF\uDFFF"`, `"\uD800\uDC00"`,
	`"\u0000"`, `"\/\/"`, `"\u00"`, `"\x41"`, `"\uzzzz"`, "\"a\tb\"", "\"\x7f\"", `"\"`, `"abc`,
	"\"\xff\"", "\"\xed\xa0\x80\"", `"\U0001F600"`, `"\u+041"`,
}

func TestDiffStringDecode(t *testing.T) {
	var inputs []string
	for _, s := range stringCorpus() {
		std, _ := json.Marshal(s) // HTML-escaped form
		var e Encoder
		e.Str(s)
		inputs = append(inputs, string(std), string(e.Bytes()), allEscaped(s))
	}
	inputs = append(inputs, literalCorpus...)
	for _, in := range inputs {
		got, err := NewDecoder([]byte(in)).Str()
		var want string
		stdErr := json.Unmarshal([]byte(in), &want)
		switch {
		case err == nil && stdErr == nil:
			if got != want {
				t.Errorf("Str(%s) = %q, encoding/json %q", in, got, want)
			}
		case err != nil && stdErr == nil:
			// The one intended difference: encoding/json accepts invalid
			// UTF-8 inside strings (replacing it with U+FFFD); we reject it.
			if utf8.ValidString(in) || !strings.Contains(err.Error(), "invalid UTF-8") {
				t.Errorf("Str(%s): %v, but encoding/json accepts it", in, err)
			}
		case err == nil && stdErr != nil:
			t.Errorf("Str(%s) = %q, but encoding/json rejects it: %v", in, got, stdErr)
		}
	}
}

func floatCorpus() []float64 {
	c := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 0.2, 0.3, 1.0 / 3, 2.0 / 3, 1e-6, 9.99999e-7, 1e-7,
		1e20, 1e21, 9.999999999999999e20, 1e-5, 123456789, 1 << 53, 1<<53 + 2, 1 << 62, 1 << 63, 1 << 64,
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.MaxFloat32, 2.2250738585072014e-308,
		1e23, 5e-324, 1.5e300, -1.5e-300, 12345.6789, 100, 1e15, 1e16, 1e17, 0.000001234, 1e-10, 1e-9}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200000; i++ {
		var f float64
		switch i % 4 {
		case 0:
			f = math.Float64frombits(r.Uint64())
		case 1:
			f = r.NormFloat64() * math.Pow(10, float64(r.IntN(60)-30))
		case 2:
			f = float64(r.Int64N(1<<60)-1<<59) / math.Pow(10, float64(r.IntN(20)))
		case 3:
			f = math.Trunc(r.Float64() * math.Pow(2, float64(r.IntN(70))))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		c = append(c, f)
	}
	return c
}

func TestDiffFloat64(t *testing.T) {
	var e Encoder
	d := NewDecoder(nil)
	for _, f := range floatCorpus() {
		e.Reset()
		e.Float64(f)
		want := stdFloat(t, f)
		if got := string(e.Bytes()); got != want {
			t.Fatalf("Float64(%v) [bits %#x] = %s, encoding/json %s", f, math.Float64bits(f), got, want)
		}
		// Decoding our output gives f back, as encoding/json does.
		d.Reset(e.Bytes())
		back, err := d.Float64()
		var stdBack float64
		json.Unmarshal(e.Bytes(), &stdBack)
		if err != nil || math.Float64bits(back) != math.Float64bits(stdBack) || back != f {
			t.Fatalf("Float64 decode of %s = %v, %v; encoding/json %v", e.Bytes(), back, err, stdBack)
		}
	}
}

// validityCorpus is JSON texts, valid and not, for Skip/Raw against json.Valid.
var validityCorpus = []string{
	``, ` `, `null`, `nul`, `nulll`, `true`, `false`, `True`, `0`, `-0`, `01`, `-01`, `1.`, `.1`, `+1`, `1e`, `1e+`,
	`1E-2`, `-`, `--1`, `0x10`, `1.5e308`, `1e999`, `NaN`, `Infinity`, `-Infinity`, `""`, `"`, `"\"`, `"\\"`,
	`"\u"`, `"\u123"`, `"\u1234"`, `"\uD800"`, `"\t"`, "\"\t\"", "\"\x7f\"", `[]`, `[`, `]`, `[1,]`, `[,]`,
	`[1 2]`, `[1,,2]`, `[[[]]]`, `{}`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{a:1}`,
	`{"a":1}}`, `{"a":[{"b":null}]}`, `{"a":1}{}`, `1 2`, ` 1 `, "\t\n\r 1 \t\n\r", "\v1", "\f1",
	"\u00a01", `/*c*/1`, `1//c`, `'a'`, `"a"`, "\xef\xbb\xbf1", "\"\xff\"", "\"\xc3\x28\"", "\xff",
	"[\"\xed\xa0\x80\"]", `{"\u0000":"\u0000"}`, `[1e1,-1E-1,0.0e+0]`, `[true,false,null]`, `[truefalse]`,
	`{"a":1,"a":2}`, `[1]x`, `"abc"def`, `{"":""}`, `[-]`, `[1.e1]`, `[01.5]`, `{"a" : [ 1 , { } ] }`,
	strings.Repeat("[", 500) + strings.Repeat("]", 500),
	strings.Repeat("[", 500) + strings.Repeat("]", 499),
	strings.Repeat(`{"a":`, 300) + "0" + strings.Repeat("}", 300),
}

func TestDiffValid(t *testing.T) {
	for _, in := range validityCorpus {
		checkValidity(t, []byte(in))
	}
}

// checkValidity compares Skip+End and Raw with json.Valid on one input.
func checkValidity(t testing.TB, in []byte) {
	t.Helper()
	d := NewDecoder(in)
	err := d.Skip()
	if err == nil {
		err = d.End()
	}
	std := json.Valid(in)
	switch {
	case err == nil && !std:
		t.Fatalf("Skip accepts %q, json.Valid rejects it", in)
	case err != nil && std:
		// Intended differences: invalid UTF-8 inside strings (json.Valid
		// accepts it, MCP requires UTF-8) and our lower nesting limit.
		msg := err.Error()
		if !strings.Contains(msg, "invalid UTF-8") && !strings.Contains(msg, "nesting depth") {
			t.Fatalf("Skip rejects %q (%v), json.Valid accepts it", in, err)
		}
	}
	if _, ok := err.(*SyntaxError); err != nil && !ok {
		t.Fatalf("Skip(%q): error %T, want *SyntaxError", in, err)
	}
	d.Reset(in)
	r, rerr := d.Raw()
	if (rerr == nil) != (err == nil || strings.Contains(err.Error(), "after top-level")) {
		t.Fatalf("Raw(%q) error %v disagrees with Skip error %v", in, rerr, err)
	}
	if err == nil && string(r) != string(bytes.TrimSpace(in)) {
		t.Fatalf("Raw(%q) = %q", in, r)
	}
}
