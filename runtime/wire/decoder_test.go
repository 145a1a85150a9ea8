package wire

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// errKind names the error's type for table checks.
func errKind(err error) string {
	var (
		se *SyntaxError
		te *TypeError
		ve *ValueError
		ue *UsageError
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &se):
		return "syntax"
	case errors.As(err, &te):
		return "type"
	case errors.As(err, &ve):
		return "value"
	case errors.As(err, &ue):
		return "usage"
	}
	return "other"
}

// checkErr fails unless err matches kind and contains msg ("" kind: no error).
func checkErr(t *testing.T, in string, err error, kind, msg string) bool {
	t.Helper()
	if got := errKind(err); got != kind {
		t.Errorf("%q: error kind %q (%v), want %q", in, got, err, kind)
		return false
	}
	if err != nil && !strings.Contains(err.Error(), msg) {
		t.Errorf("%q: error %q, want it to contain %q", in, err.Error(), msg)
		return false
	}
	return true
}

func TestPeek(t *testing.T) {
	tests := []struct {
		in   string
		want Kind
	}{
		{"", Invalid}, {"   ", Invalid}, {"x", Invalid}, {"+1", Invalid}, {".5", Invalid},
		{"null", Null}, {" \t\r\n true", Bool}, {"false", Bool},
		{"0", Number}, {"-1", Number}, {"9", Number},
		{`"s"`, String}, {"[]", Array}, {"{}", Object},
		{"nope", Null}, // judged from the first byte only
	}
	for _, tt := range tests {
		d := NewDecoder([]byte(tt.in))
		if got := d.Peek(); got != tt.want {
			t.Errorf("Peek(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if got := d.Peek(); got != tt.want { // Peek does not consume
			t.Errorf("second Peek(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestKindString(t *testing.T) {
	want := map[Kind]string{Invalid: "invalid", Null: "null", Bool: "boolean", Number: "number",
		String: "string", Array: "array", Object: "object", Kind(200): "invalid"}
	for k, s := range want {
		if k.String() != s {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), s)
		}
	}
}

func TestStr(t *testing.T) {
	tests := []struct {
		in, want  string
		kind, msg string
	}{
		{in: `"hello"`, want: "hello"},
		{in: `  ""  `, want: ""},
		{in: `"a\"b"`, want: `a"b`},
		{in: `"\\\/\b\f\n\r\t"`, want: "\\/\b\f\n\r\t"},
		{in: `"\u00e9\u00E9"`, want: "éé"},
		{in: `"\u0000"`, want: "\x00"},
		{in: `"\uD83D\uDE00"`, want: "😀"},
		{in: `"héllo 世界 😀 <>&"`, want: "héllo 世界 😀 <>&"},
		{in: "\"\u2028\u2029\"", want: "\u2028\u2029"},
		{in: `"` + strings.Repeat("abcdefgh", 20) + `\n"`, want: strings.Repeat("abcdefgh", 20) + "\n"},
		{in: "\"\x7f\"", want: "\x7f"},
		// Lone surrogates become U+FFFD, as in encoding/json.
		{in: `"\uD83D"`, want: "\uFFFD"},
		{in: `"\uDE00"`, want: "\uFFFD"},
		{in: `"\uD83Dx"`, want: "\uFFFDx"},
		{in: `"\uD83D\u0041"`, want: "\uFFFDA"},
		{in: `"\uD83D\uD83D\uDE00"`, want: "\uFFFD😀"},
		{in: `"\uD83D\n"`, want: "\uFFFD\n"},

		{in: `"abc`, kind: "syntax", msg: "unexpected end of input in string"},
		{in: `"abc\`, kind: "syntax", msg: "unexpected end of input in string escape"},
		{in: "\"a\x01b\"", kind: "syntax", msg: "invalid control character byte 0x01 in string"},
		{in: "\"a\nb\"", kind: "syntax", msg: "invalid control character byte 0x0a in string"},
		{in: `"\x"`, kind: "syntax", msg: `invalid escape sequence '\x' in string`},
		{in: `"\'"`, kind: "syntax", msg: `invalid escape sequence`},
		{in: `"\u12"`, kind: "syntax", msg: `invalid \u escape`},
		{in: `"\u12G4"`, kind: "syntax", msg: `invalid \u escape`},
		{in: "\"\xff\"", kind: "syntax", msg: "invalid UTF-8 in string"},
		{in: "\"\xc0\x80\"", kind: "syntax", msg: "invalid UTF-8"},                 // overlong
		{in: "\"\xed\xa0\x80\"", kind: "syntax", msg: "invalid UTF-8"},             // encoded surrogate
		{in: "\"\xe4\xb8\"", kind: "syntax", msg: "invalid UTF-8"},                 // truncated
		{in: "\"abcdefgh\xf5\x80\x80\x80\"", kind: "syntax", msg: "invalid UTF-8"}, // beyond U+10FFFF
		{in: `123`, kind: "type", msg: "expected string, found number"},
		{in: `null`, kind: "type", msg: "expected string, found null"},
		{in: `{}`, kind: "type", msg: "expected string, found object"},
		{in: `[]`, kind: "type", msg: "expected string, found array"},
		{in: `true`, kind: "type", msg: "expected string, found boolean"},
		{in: `x`, kind: "syntax", msg: "invalid character 'x' looking for beginning of value"},
		{in: `'a'`, kind: "syntax", msg: `invalid character '\'' looking for beginning of value`},
		{in: ``, kind: "syntax", msg: "unexpected end of input, expected string"},
	}
	for _, tt := range tests {
		d := NewDecoder([]byte(tt.in))
		got, err := d.Str()
		if !checkErr(t, tt.in, err, tt.kind, tt.msg) || err != nil {
			continue
		}
		if got != tt.want {
			t.Errorf("Str(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if err := d.End(); err != nil {
			t.Errorf("Str(%q): End: %v", tt.in, err)
		}
		// StrBytes agrees.
		b, err := NewDecoder([]byte(tt.in)).StrBytes()
		if err != nil || string(b) != tt.want {
			t.Errorf("StrBytes(%q) = %q, %v", tt.in, b, err)
		}
	}
}

func TestStrBytesAliasing(t *testing.T) {
	in := []byte(`["plain", "esc\u0061ped", "again\n"]`)
	d := NewDecoder(in)
	var got []string
	err := d.Array(func() error {
		b, err := d.StrBytes()
		got = append(got, string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "plain|escaped|again\n" {
		t.Errorf("got %q", got)
	}
	// Unescaped strings alias the input.
	d.Reset(in)
	d.Array(func() error {
		b, _ := d.StrBytes()
		if string(b) == "plain" && &b[0] != &in[2] {
			t.Error("plain string does not alias the input")
		}
		return nil
	})
}

func TestStrSyntaxErrorOffset(t *testing.T) {
	_, err := NewDecoder([]byte("  \"ab\x01\"")).Str()
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 5 {
		t.Fatalf("err = %#v, want offset 5", err)
	}
	if err.Error() != "syntax error at offset 5: invalid control character byte 0x01 in string (must be escaped)" {
		t.Errorf("message %q", err.Error())
	}
}

func TestInt64(t *testing.T) {
	tests := []struct {
		in        string
		want      int64
		kind, msg string
	}{
		{in: "0", want: 0},
		{in: "-0", want: 0},
		{in: " 42 ", want: 42},
		{in: "5", want: 5},
		{in: "-5", want: -5},
		{in: "5.0", want: 5},
		{in: "5.000", want: 5},
		{in: "5e2", want: 500},
		{in: "5E+2", want: 500},
		{in: "1.5e1", want: 15},
		{in: "100e-2", want: 1},
		{in: "-2.50e1", want: -25},
		{in: "0.0e99999", want: 0},
		{in: "0e-5", want: 0},
		{in: "1e18", want: 1000000000000000000},
		{in: "123456789012345678", want: 123456789012345678},
		{in: "-123456789012345678", want: -123456789012345678},
		{in: "1234567890123456789", want: 1234567890123456789},
		{in: "9223372036854775807", want: math.MaxInt64},
		{in: "-9223372036854775808", want: math.MinInt64},
		{in: "9223372036854775807.000", want: math.MaxInt64},
		{in: "922337203685477580.7e1", want: math.MaxInt64},
		{in: "0.09223372036854775807e20", want: math.MaxInt64},
		{in: "00000", kind: "syntax", msg: "leading zero"},
		{in: "1.5", kind: "value", msg: "number 1.5 is not an integer"},
		{in: "1e-1", kind: "value", msg: "number 1e-1 is not an integer"},
		{in: "1.0000000000000000000001", kind: "value", msg: "is not an integer"},
		{in: "1e30", kind: "value", msg: "number 1e30 is out of range for int64"},
		{in: "1e19", kind: "value", msg: "out of range"},
		{in: "9.3e18", kind: "value", msg: "out of range"},
		{in: "9223372036854775808", kind: "value", msg: "number 9223372036854775808 is out of range for int64"},
		{in: "-9223372036854775809", kind: "value", msg: "out of range"},
		{in: "18446744073709551615", kind: "value", msg: "out of range"},
		{in: "99999999999999999999", kind: "value", msg: "out of range"},
		{in: "1e99999999999999999999999", kind: "value", msg: "out of range"},
		{in: "1" + strings.Repeat("0", 60), kind: "value", msg: "number 1000000000000000000000000000000000000... is out of range"},
		{in: `"5"`, kind: "type", msg: "expected integer, found string"},
		{in: `true`, kind: "type", msg: "expected integer, found boolean"},
		{in: ``, kind: "syntax", msg: "unexpected end of input, expected integer"},
		{in: `-`, kind: "syntax", msg: "expected digit after '-', found end of input"},
		{in: `-x`, kind: "syntax", msg: "expected digit after '-', found 'x'"},
		{in: `01`, kind: "syntax", msg: "invalid number: leading zero"},
		{in: `-01`, kind: "syntax", msg: "leading zero"},
		{in: `+1`, kind: "syntax", msg: "invalid character '+' looking for beginning of value"},
		{in: `.5`, kind: "syntax", msg: "invalid character '.'"},
		{in: `1.`, kind: "syntax", msg: "expected digit after decimal point, found end of input"},
		{in: `1.e5`, kind: "syntax", msg: "expected digit after decimal point, found 'e'"},
		{in: `1e`, kind: "syntax", msg: "expected digit in exponent"},
		{in: `1e+`, kind: "syntax", msg: "expected digit in exponent"},
		{in: `NaN`, kind: "syntax", msg: "invalid character 'N'"},
		{in: `Infinity`, kind: "syntax", msg: "invalid character 'I'"},
		{in: `-Infinity`, kind: "syntax", msg: "expected digit after '-'"},
	}
	for _, tt := range tests {
		d := NewDecoder([]byte(tt.in))
		got, err := d.Int64()
		if !checkErr(t, tt.in, err, tt.kind, tt.msg) || err != nil {
			continue
		}
		if got != tt.want {
			t.Errorf("Int64(%q) = %d, want %d", tt.in, got, tt.want)
		}
		if err := d.End(); err != nil {
			t.Errorf("Int64(%q): End: %v", tt.in, err)
		}
	}
}

func TestFloat64(t *testing.T) {
	tests := []struct {
		in        string
		want      float64
		kind, msg string
	}{
		{in: "0", want: 0},
		{in: "1", want: 1},
		{in: "-1.5", want: -1.5},
		{in: "0.1", want: 0.1},
		{in: "1e-7", want: 1e-7},
		{in: "1.7976931348623157e308", want: math.MaxFloat64},
		{in: "5e-324", want: 5e-324},
		{in: "1e-400", want: 0}, // underflow rounds to zero, as strconv and encoding/json do
		{in: "123456789012345", want: 123456789012345},
		{in: "12345678901234567890", want: 12345678901234567890},
		{in: "9007199254740993", want: 9007199254740992},
		{in: "1e400", kind: "value", msg: "number 1e400 is out of range for float64"},
		{in: "-1e400", kind: "value", msg: "out of range"},
		{in: `"1"`, kind: "type", msg: "expected number, found string"},
		{in: `1.`, kind: "syntax", msg: "decimal point"},
		{in: `NaN`, kind: "syntax", msg: "invalid character 'N'"},
	}
	for _, tt := range tests {
		got, err := NewDecoder([]byte(tt.in)).Float64()
		if !checkErr(t, tt.in, err, tt.kind, tt.msg) || err != nil {
			continue
		}
		if got != tt.want {
			t.Errorf("Float64(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	// The sign of zero survives both paths.
	for _, in := range []string{"-0", "-0.0", "-0e1"} {
		f, err := NewDecoder([]byte(in)).Float64()
		if err != nil || f != 0 || !math.Signbit(f) {
			t.Errorf("Float64(%q) = %v, %v, want -0", in, f, err)
		}
	}
}

func TestNumber(t *testing.T) {
	for _, in := range []string{"0", "-0", "1.5", "-12.5e+10", "1E-3", "123456789012345678901234567890"} {
		d := NewDecoder([]byte(" " + in + " "))
		got, err := d.Number()
		if err != nil || string(got) != in {
			t.Errorf("Number(%q) = %q, %v", in, got, err)
		}
	}
	_, err := NewDecoder([]byte(`"1"`)).Number()
	checkErr(t, `"1"`, err, "type", "expected number, found string")
}

func TestBoolNull(t *testing.T) {
	for _, tt := range []struct {
		in        string
		want      bool
		kind, msg string
	}{
		{in: "true", want: true},
		{in: " false ", want: false},
		{in: "tru", kind: "syntax", msg: "invalid literal, expected true"},
		{in: "fals", kind: "syntax", msg: "invalid literal, expected false"},
		{in: "True", kind: "syntax", msg: "invalid character 'T'"},
		{in: "null", kind: "type", msg: "expected boolean, found null"},
		{in: "1", kind: "type", msg: "expected boolean, found number"},
		{in: "", kind: "syntax", msg: "unexpected end of input, expected boolean"},
	} {
		d := NewDecoder([]byte(tt.in))
		got, err := d.Bool()
		if !checkErr(t, tt.in, err, tt.kind, tt.msg) || err != nil {
			continue
		}
		if got != tt.want || d.End() != nil {
			t.Errorf("Bool(%q) = %v", tt.in, got)
		}
	}
	// Inside a container the literal is followed by more input (Bool's
	// four-byte fast path); a literal cut short is still an error.
	for _, tt := range []struct {
		in   string
		want []bool
		msg  string
	}{
		{in: "[true,false,true]", want: []bool{true, false, true}},
		{in: "[ false , true ]", want: []bool{false, true}},
		{in: "[fals]", msg: "invalid literal, expected false"},
		{in: "[falsy]", msg: "invalid literal, expected false"},
		{in: "[trUe]", msg: "invalid literal, expected true"},
	} {
		d := NewDecoder([]byte(tt.in))
		var got []bool
		err := d.Array(func() error {
			b, err := d.Bool()
			got = append(got, b)
			return err
		})
		if tt.msg != "" {
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%s: error %v, want %q", tt.in, err, tt.msg)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	// And as a member's value, followed by ',' or '}'.
	d := NewDecoder([]byte(`{"a":true,"b":false}`))
	var members []bool
	if err := d.Object(func([]byte) error {
		b, err := d.Bool()
		members = append(members, b)
		return err
	}); err != nil || !reflect.DeepEqual(members, []bool{true, false}) {
		t.Errorf("members: %v, %v", members, err)
	}
	for _, tt := range []struct{ in, kind, msg string }{
		{in: "null"},
		{in: " null "},
		{in: "nul", kind: "syntax", msg: "invalid literal, expected null"},
		{in: "nil", kind: "syntax", msg: "invalid literal, expected null"},
		{in: "false", kind: "type", msg: "expected null, found boolean"},
		{in: `""`, kind: "type", msg: "expected null, found string"},
	} {
		d := NewDecoder([]byte(tt.in))
		err := d.Null()
		if checkErr(t, tt.in, err, tt.kind, tt.msg) && err == nil && d.End() != nil {
			t.Errorf("Null(%q) left data", tt.in)
		}
	}
}

func TestEndAndOffset(t *testing.T) {
	d := NewDecoder([]byte(` 1 2`))
	if _, err := d.Int64(); err != nil {
		t.Fatal(err)
	}
	if d.Offset() != 2 {
		t.Errorf("Offset = %d, want 2", d.Offset())
	}
	err := d.End()
	checkErr(t, "1 2", err, "syntax", "unexpected data after top-level value")
	if se := (*SyntaxError)(nil); !errors.As(err, &se) || se.Offset != 3 {
		t.Errorf("End error %#v, want offset 3", err)
	}
	d.Reset([]byte("true \r\n\t"))
	if _, err := d.Bool(); err != nil || d.End() != nil {
		t.Error("End with trailing whitespace failed")
	}
}

func TestObject(t *testing.T) {
	in := `{ "b" : 1, "a":"x", "b":2, "e\u0073c\n":{"in\u006eer":[true]}, "":null }`
	d := NewDecoder([]byte(in))
	var keys []string
	err := d.Object(func(key []byte) error {
		k := string(key)
		keys = append(keys, k)
		if k == "esc\n" {
			// The outer escaped key must survive nested escaped keys and strings.
			err := d.Object(func(inner []byte) error {
				if string(inner) != "inner" {
					t.Errorf("inner key %q", inner)
				}
				return d.Skip()
			})
			if string(key) != "esc\n" {
				t.Errorf("outer key clobbered: %q", key)
			}
			return err
		}
		return d.Skip()
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keys, ","); got != "b,a,b,esc\n," {
		t.Errorf("keys %q", got)
	}
	if err := d.End(); err != nil {
		t.Error(err)
	}

	// Escaped outer key survives escaped string values decoded by fn.
	d.Reset([]byte(`{"k\u0031":"v\u0031","k\u0032":"v\u0032"}`))
	err = d.Object(func(key []byte) error {
		before := string(key)
		v, err := d.StrBytes()
		if string(key) != before || "v"+before[1:] != string(v) {
			t.Errorf("key %q value %q", key, v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	for _, tt := range []struct{ in, kind, msg string }{
		{in: `{}`},
		{in: ` { } `},
		{in: `{"a":1,}`, kind: "syntax", msg: "expected string for object key, found '}'"},
		{in: `{,}`, kind: "syntax", msg: "expected string for object key, found ','"},
		{in: `{"a" 1}`, kind: "syntax", msg: "expected ':' after object key, found '1'"},
		{in: `{"a":1 "b":2}`, kind: "syntax", msg: "expected ',' or '}' after object member, found '\"'"},
		{in: `{"a":1`, kind: "syntax", msg: "expected ',' or '}' after object member, found end of input"},
		{in: `{"a":1]`, kind: "syntax", msg: "found ']'"},
		{in: `{a:1}`, kind: "syntax", msg: "expected string for object key, found 'a'"},
		{in: `{'a':1}`, kind: "syntax", msg: "found '\\''"},
		{in: `{"a":}`, kind: "syntax", msg: "invalid character '}' looking for beginning of value"},
		{in: `{"a":1 /* c */}`, kind: "syntax", msg: "found '/'"},
		{in: "{\"\xff\":1}", kind: "syntax", msg: "invalid UTF-8"},
		{in: `{`, kind: "syntax", msg: "found end of input"},
		{in: `[]`, kind: "type", msg: "expected object, found array"},
		{in: `"{}"`, kind: "type", msg: "expected object, found string"},
		{in: ``, kind: "syntax", msg: "unexpected end of input, expected object"},
	} {
		checkErr(t, tt.in, decodeSkippingObject(tt.in), tt.kind, tt.msg)
	}
}

func decodeSkippingObject(in string) error {
	d := NewDecoder([]byte(in))
	err := d.Object(func([]byte) error { return d.Skip() })
	if err == nil {
		err = d.End()
	}
	return err
}

func TestObjectCallbackErrors(t *testing.T) {
	sentinel := errors.New("stop")
	d := NewDecoder([]byte(`{"a":1,"b":2}`))
	n := 0
	err := d.Object(func([]byte) error {
		n++
		if n == 2 {
			return sentinel
		}
		return d.Skip()
	})
	if err != sentinel || n != 2 {
		t.Errorf("err %v after %d members, want sentinel after 2", err, n)
	}

	d.Reset([]byte(`{"a" : 1}`))
	err = d.Object(func([]byte) error { d.Peek(); return nil })
	checkErr(t, "unconsumed", err, "usage", `without consuming the value of object member "a"`)
	// The key is read again for the message: escaped, after other members.
	d.Reset([]byte(`{"x":2, "\u0061\"b" :1}`))
	err = d.Object(func(k []byte) error {
		if string(k) == "x" {
			return d.Skip()
		}
		return nil
	})
	checkErr(t, "unconsumed escaped", err, "usage", `without consuming the value of object member "a\"b"`)
	if ue, ok := err.(*UsageError); !ok || ue.Offset != 21 {
		t.Errorf("unconsumed escaped: %#v, want a UsageError at offset 21", err)
	}

	d.Reset([]byte(`[ 1]`))
	err = d.Array(func() error { return nil })
	checkErr(t, "unconsumed", err, "usage", "array element")

	// A type error inside the callback surfaces unchanged.
	d.Reset([]byte(`{"a":1}`))
	err = d.Object(func([]byte) error { _, err := d.Str(); return err })
	checkErr(t, "type", err, "type", "expected string, found number")
}

func TestArray(t *testing.T) {
	d := NewDecoder([]byte(` [ 1 , 2,3 ] `))
	var sum int64
	err := d.Array(func() error {
		n, err := d.Int64()
		sum += n
		return err
	})
	if err != nil || sum != 6 || d.End() != nil {
		t.Fatalf("sum %d err %v", sum, err)
	}
	d.Reset([]byte(`[[],[[]],{}]`))
	count := 0
	if err := d.Array(func() error { count++; return d.Skip() }); err != nil || count != 3 {
		t.Errorf("count %d err %v", count, err)
	}
	for _, tt := range []struct{ in, kind, msg string }{
		{in: `[]`},
		{in: `[ ]`},
		{in: `[1,]`, kind: "syntax", msg: "invalid character ']' looking for beginning of value"},
		{in: `[,1]`, kind: "syntax", msg: "invalid character ','"},
		{in: `[1 2]`, kind: "syntax", msg: "expected ',' or ']' after array element, found '2'"},
		{in: `[1`, kind: "syntax", msg: "found end of input"},
		{in: `[1}`, kind: "syntax", msg: "found '}'"},
		{in: `[`, kind: "syntax", msg: "unexpected end of input, expected a value"},
		{in: `{}`, kind: "type", msg: "expected array, found object"},
		{in: `null`, kind: "type", msg: "expected array, found null"},
	} {
		d := NewDecoder([]byte(tt.in))
		err := d.Array(func() error { return d.Skip() })
		if err == nil {
			err = d.End()
		}
		checkErr(t, tt.in, err, tt.kind, tt.msg)
	}
}

func TestMaxDepth(t *testing.T) {
	nest := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	nestObj := func(n int) []byte {
		return []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n))
	}
	d := NewDecoder(nest(DefaultMaxDepth))
	if err := d.Skip(); err != nil {
		t.Fatalf("depth %d: %v", DefaultMaxDepth, err)
	}
	d.Reset(nest(DefaultMaxDepth + 1))
	checkErr(t, "deep", d.Skip(), "syntax", "exceeded maximum nesting depth of 1000")
	d.Reset(nestObj(DefaultMaxDepth + 1))
	checkErr(t, "deep", d.Skip(), "syntax", "exceeded maximum nesting depth of 1000")

	d.SetMaxDepth(3)
	d.Reset(nest(3)) // Reset keeps the limit
	if err := d.Skip(); err != nil {
		t.Fatal(err)
	}
	d.Reset(nestObj(4))
	_, err := d.Raw()
	checkErr(t, "deep", err, "syntax", "exceeded maximum nesting depth of 3")

	// Object and Array count depth too, together with Skip inside them.
	d.Reset([]byte(`[[[1]]]`))
	var rec func() error
	rec = func() error {
		if d.Peek() == Array {
			return d.Array(rec)
		}
		return d.Skip()
	}
	if err := rec(); err != nil {
		t.Fatal(err)
	}
	d.Reset([]byte(`[[[[1]]]]`))
	checkErr(t, "deep", rec(), "syntax", "depth of 3")
	d.Reset([]byte(`[[[[1]]]]`))
	checkErr(t, "deep", d.Array(func() error { return d.Skip() }), "syntax", "depth of 3")

	d.SetMaxDepth(0) // back to the default
	d.Reset(nest(DefaultMaxDepth))
	if err := d.Skip(); err != nil {
		t.Fatal(err)
	}
	var zero Decoder
	zero.Reset(nest(DefaultMaxDepth + 1))
	checkErr(t, "deep", zero.Skip(), "syntax", "depth of 1000")
}

func TestSkipAndRaw(t *testing.T) {
	valid := []string{
		`null`, `true`, `false`, `0`, `-0`, `1.5e-3`, `-12E+4`, `""`, `"a\u00e9\n"`,
		`[]`, `{}`, `[1,"a",null,true,false,{},[]]`,
		`{"a":{"b":[1,{"c":"d"}]},"e":-1}`,
		" {\n\t\"a\" : [ 1 , 2 ] \r\n} ",
		"\"héllo 世界\"",
	}
	for _, in := range valid {
		d := NewDecoder([]byte(in + ` 7`))
		if err := d.Skip(); err != nil {
			t.Errorf("Skip(%q): %v", in, err)
			continue
		}
		if n, err := d.Int64(); err != nil || n != 7 {
			t.Errorf("after Skip(%q): %d, %v", in, n, err)
		}
		src := []byte(in)
		d.Reset(src)
		r, err := d.Raw()
		if err != nil || string(r) != strings.TrimSpace(in) {
			t.Errorf("Raw(%q) = %q, %v", in, r, err)
		}
		if len(r) > 0 && &r[0] == &src[len(src)-len(strings.TrimLeft(in, " \n\t\r"))] {
			t.Errorf("Raw(%q) aliases the input", in)
		}
	}
	invalid := []struct{ in, msg string }{
		{``, "unexpected end of input"},
		{`nul`, "invalid literal, expected null"},
		{`tRUE`, "invalid literal, expected true"},
		{`[1,]`, "invalid character ']'"},
		{`{"a":1,}`, "expected string for object key"},
		{`{"a"}`, "expected ':'"},
		{`{"a":1 x}`, "expected ',' or '}'"},
		{`[1 x]`, "expected ',' or ']'"},
		{`01`, "leading zero"},
		{`1.`, "decimal point"},
		{`"\q"`, "invalid escape"},
		{"\"\x00\"", "control character"},
		{"\"\xc3\"", "invalid UTF-8"},
		{`/* c */ 1`, "invalid character '/'"},
		{`[1 // c` + "\n]", "found '/'"},
		{`NaN`, "invalid character 'N'"},
		{`}`, "invalid character '}'"},
	}
	for _, tt := range invalid {
		err := NewDecoder([]byte(tt.in)).Skip()
		checkErr(t, tt.in, err, "syntax", tt.msg)
		_, err = NewDecoder([]byte(tt.in)).Raw()
		checkErr(t, tt.in, err, "syntax", tt.msg)
	}
}

func TestResetReuse(t *testing.T) {
	d := NewDecoder([]byte(`{"a\u0062":"x\ny"}`))
	for i := 0; i < 3; i++ {
		err := d.Object(func(key []byte) error {
			if string(key) != "ab" {
				t.Errorf("key %q", key)
			}
			s, err := d.StrBytes()
			if string(s) != "x\ny" {
				t.Errorf("value %q", s)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		d.Reset(d.buf)
	}
}

func TestDecoderAllocs(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"e\u0063ho","arguments":{"text":"hello\n","n":1.5e3,"ok":true,"list":[1,2,3],"none":null}}}`)
	d := NewDecoder(msg)
	var sink struct {
		n int64
		f float64
		b bool
	}
	var walk func() error
	walk = func() error {
		switch d.Peek() {
		case Object:
			return d.Object(func(key []byte) error { return walk() })
		case Array:
			return d.Array(walk)
		case String:
			_, err := d.StrBytes()
			return err
		case Number:
			var err error
			if sink.n, err = d.Int64(); err != nil {
				return err
			}
			return nil
		case Bool:
			var err error
			sink.b, err = d.Bool()
			return err
		}
		return d.Null()
	}
	check := func(name string, fn func() error) {
		t.Helper()
		allocs := testing.AllocsPerRun(100, func() {
			d.Reset(msg)
			if err := fn(); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per run, want 0", name, allocs)
		}
	}
	check("walk", walk)
	check("skip", d.Skip)
	check("peek", func() error { d.Peek(); return nil })
	floatIn, intIn := []byte("12345.678e-3"), []byte("12e3")
	check("float", func() error {
		var err error
		d.Reset(floatIn)
		sink.f, err = d.Float64()
		return err
	})
	check("int", func() error {
		var err error
		d.Reset(intIn)
		sink.n, err = d.Int64()
		return err
	})
}

func TestErrorConsumption(t *testing.T) {
	// A *ValueError consumes the value; a *TypeError consumes nothing.
	d := NewDecoder([]byte(` 1.5 "s" 2`))
	if _, err := d.Int64(); errKind(err) != "value" {
		t.Fatalf("Int64: %v", err)
	}
	if _, err := d.Int64(); errKind(err) != "type" || d.Offset() != 5 {
		t.Fatalf("Int64: %v at %d", err, d.Offset())
	}
	if s, err := d.Str(); err != nil || s != "s" {
		t.Fatalf("Str: %q %v", s, err)
	}
	if _, err := d.Float64(); err != nil || d.End() != nil {
		t.Fatal(err)
	}
}

// TestNameTable checks Name's common names: each is found (whatever slot its
// probe started at) and returned as the table's own string, with no copy;
// names that are not in it, including near misses, are copied.
func TestNameTable(t *testing.T) {
	n := 0
	for i, s := range commonNames {
		if s == "" {
			continue
		}
		n++
		got, ok := commonNames.get([]byte(s))
		if !ok || unsafe.StringData(got) != unsafe.StringData(commonNames[i]) {
			t.Errorf("get(%q) = %q, %v: want the table's own string", s, got, ok)
		}
	}
	if n == 0 || 2*n > len(commonNames) {
		t.Errorf("%d names in %d slots, want some and at most half", n, len(commonNames))
	}
	for _, s := range []string{"path", "depth", "typ", "types", "Type", "minItem", "maxitems", "x", "$"} {
		if got, ok := commonNames.get([]byte(s)); ok {
			t.Errorf("get(%q) = %q, want a miss", s, got)
		}
	}
	d := NewDecoder([]byte(`{}`))
	key := []byte("maxItems")
	if got := d.Name(key); got != "maxItems" || unsafe.StringData(got) == unsafe.SliceData(key) {
		t.Errorf("Name(maxItems) = %q, want the common name, not a view of the key", got)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = d.Name(key) }); allocs != 0 {
		t.Errorf("Name of a common name: %v allocs, want 0", allocs)
	}
	key = []byte("path")
	got := d.Name(key)
	key[0] = 'm'
	if got != "path" {
		t.Errorf("Name(path) = %q after its key changed, want a copy", got)
	}
}

// TestKeptCopies checks the copies Str, Name and Raw cut from the decoder's
// shared block: each outlives later decodes on the same decoder, owns its
// bytes (writing or appending to a Raw changes nothing else), and long values
// are copied on their own.
func TestKeptCopies(t *testing.T) {
	long := strings.Repeat("z", textAlone+1)
	in := []byte(`{"k\u0065y":"v\tw","raw":{"a":[1,2]},"next":"tail","long":"` + long + `"}`)
	d := NewDecoder(nil)
	type got struct {
		names, strs []string
		raws        []Raw
	}
	decode := func(in []byte) got {
		var g got
		d.Reset(in)
		if err := d.Object(func(key []byte) error {
			g.names = append(g.names, d.Name(key))
			if string(key) == "raw" {
				r, err := d.Raw()
				g.raws = append(g.raws, r)
				return err
			}
			s, err := d.Str()
			g.strs = append(g.strs, s)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return g
	}
	first := decode(slices.Clone(in))
	// Decode other input many times over: the first results must not change.
	other := []byte(`{"xxxxxxxx":"yyyyyyyyyyyyyyyy","raw":[0,0,0,0,0,0,0,0,0,0]}`)
	for range 1000 {
		decode(other)
	}
	r := first.raws[0]
	r[0] = '['
	r = append(r, '!')
	want := got{names: []string{"key", "raw", "next", "long"}, strs: []string{"v\tw", "tail", long}, raws: []Raw{Raw(`[` + `"a":[1,2]}`)}}
	if !slices.Equal(first.names, want.names) || !slices.Equal(first.strs, want.strs) || string(first.raws[0]) != string(want.raws[0]) {
		t.Errorf("got %q %q %q, want %q %q %q", first.names, first.strs, first.raws, want.names, want.strs, want.raws)
	}
	if string(r) != `["a":[1,2]}!` || first.strs[1] != "tail" {
		t.Errorf("appending to a kept Raw changed other values: %q %q", r, first.strs[1])
	}
	allocs := testing.AllocsPerRun(100, func() { decode(in) })
	// Three growing slices of results (appends), and at most one block,
	// plus the long string's own copy.
	if allocs > 9 {
		t.Errorf("%v allocs per decode, want at most 9", allocs)
	}
}
