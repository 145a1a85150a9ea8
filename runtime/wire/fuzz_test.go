package wire

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzDecoderSkip checks that Skip (and Raw) agree with json.Valid, except
// that we reject invalid UTF-8 in strings and nesting beyond
// DefaultMaxDepth, and that no input makes the decoder panic.
func FuzzDecoderSkip(f *testing.F) {
	for _, s := range validityCorpus {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"h\u00e9llo"}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkValidity(t, in)
		// Drive the typed methods too: none may panic, whatever the input.
		d := NewDecoder(in)
		var walk func() error
		walk = func() error {
			switch d.Peek() {
			case Object:
				return d.Object(func([]byte) error { return walk() })
			case Array:
				return d.Array(walk)
			case String:
				_, err := d.Str()
				return err
			case Number:
				start := d.pos
				if _, err := d.Int64(); err == nil {
					return nil
				}
				d.pos = start // a *ValueError consumes the number
				_, err := d.Float64()
				return err
			case Bool:
				_, err := d.Bool()
				return err
			}
			return d.Null()
		}
		err := walk()
		if err == nil {
			err = d.End()
		}
		if err == nil {
			d.Reset(in)
			if d.Skip() != nil || d.End() != nil {
				t.Fatalf("walk accepts %q but Skip rejects it", in)
			}
		}
	})
}

// FuzzStringRoundTrip checks string encoding against encoding/json and that
// decoding our encoding gives the string back (invalid UTF-8 as U+FFFD).
func FuzzStringRoundTrip(f *testing.F) {
	for _, s := range stringCorpus()[:100] {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var e Encoder
		e.Str(s)
		enc := e.Bytes()
		if want := stdString(t, s); string(enc) != want {
			t.Fatalf("Str(%q) = %s, encoding/json %s", s, enc, want)
		}
		got, err := NewDecoder(enc).Str()
		if err != nil {
			t.Fatalf("decoding %s: %v", enc, err)
		}
		if want := perByteFFFD(s); got != want {
			t.Fatalf("round trip of %q gave %q", s, got)
		}
		var std string
		if err := json.Unmarshal(enc, &std); err != nil || std != got {
			t.Fatalf("encoding/json decodes %s as %q (%v), we as %q", enc, std, err, got)
		}
		// An escaped-everything spelling decodes to the same string.
		if utf8.ValidString(s) {
			if got2, err := NewDecoder([]byte(allEscaped(s))).Str(); err != nil || got2 != s {
				t.Fatalf("decoding %s = %q, %v", allEscaped(s), got2, err)
			}
		}
	})
}

// FuzzFloat checks Float64 encoding against encoding/json for every bit
// pattern and that decoding the result restores the value.
func FuzzFloat(f *testing.F) {
	for _, v := range floatCorpus()[:200] {
		f.Add(math.Float64bits(v))
	}
	d := NewDecoder(nil)
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		var e Encoder
		e.Float64(v)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if e.Err() == nil || string(e.Bytes()) != "null" {
				t.Fatalf("Float64(%v) = %s, err %v", v, e.Bytes(), e.Err())
			}
			return
		}
		if got, want := string(e.Bytes()), stdFloat(t, v); got != want {
			t.Fatalf("Float64(%v) [bits %#x] = %s, encoding/json %s", v, bits, got, want)
		}
		d.Reset(e.Bytes())
		back, err := d.Float64()
		if err != nil || math.Float64bits(back) != bits {
			t.Fatalf("decoding %s = %v (%#x), %v", e.Bytes(), back, math.Float64bits(back), err)
		}
	})
}

// FuzzInt64 checks Int64 against exact rational arithmetic: a literal is
// accepted exactly when its value is an integer in the int64 range.
func FuzzInt64(f *testing.F) {
	for _, s := range []string{"0", "-0", "5", "5.0", "5e2", "1.5e1", "1.5", "1e30", "9223372036854775807",
		"-9223372036854775808", "9223372036854775808", "922337203685477580.7e1", "100e-2", "0.0e999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.Trim(s, " \t\r\n")
		d := NewDecoder([]byte(s))
		if d.Peek() != Number || d.Skip() != nil || d.End() != nil {
			return
		}
		d.Reset([]byte(s))
		got, err := d.Int64()
		if len(s) > 200 || hugeExponent(s) {
			return // big.Rat would take too long; only check for panics
		}
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("big.Rat rejects %q", s)
		}
		want := r.IsInt() && r.Num().IsInt64()
		if want != (err == nil) {
			t.Fatalf("Int64(%q) = %d, %v; exact value %s", s, got, err, r.RatString())
		}
		if err == nil && got != r.Num().Int64() {
			t.Fatalf("Int64(%q) = %d, want %s", s, got, r.RatString())
		}
		if err != nil {
			if _, ok := err.(*ValueError); !ok {
				t.Fatalf("Int64(%q): error %T, want *ValueError", s, err)
			}
		}
	})
}

func hugeExponent(s string) bool {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return false
	}
	e := strings.TrimLeft(s[i+1:], "+-")
	e = strings.TrimLeft(e, "0")
	return len(e) > 3
}

// perByteFFFD replaces each byte of invalid UTF-8 in s with U+FFFD, as the
// encoder does.
func perByteFFFD(s string) string {
	var b strings.Builder
	for _, r := range s { // ranging yields RuneError once per invalid byte
		b.WriteRune(r)
	}
	return b.String()
}

// FuzzCompareNumbers holds CompareNumbers and IsIntegral to big.Rat on
// number literals of modest exponents (big.Rat's cost grows with them).
func FuzzCompareNumbers(f *testing.F) {
	for _, seed := range [][2]string{{"1", "1.0"}, {"-0", "0e9"}, {"0.1", "1e-1"}, {"12.5e1", "125"}, {"-1.5", "-1.49"}, {"9.999e2", "1e3"}} {
		f.Add(seed[0], seed[1])
	}
	lit := func(s string) ([]byte, *big.Rat, bool) {
		d := NewDecoder([]byte(s))
		n, err := d.Number()
		if err != nil || d.End() != nil || len(n) > 200 {
			return nil, nil, false
		}
		if i := strings.IndexAny(string(n), "eE"); i >= 0 {
			if e, err := strconv.Atoi(strings.TrimPrefix(string(n[i+1:]), "+")); err != nil || e > 1000 || e < -1000 {
				return nil, nil, false
			}
		}
		r, ok := new(big.Rat).SetString(string(n))
		return n, r, ok
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		la, ra, ok := lit(a)
		if !ok {
			return
		}
		lb, rb, ok := lit(b)
		if !ok {
			return
		}
		if got, want := CompareNumbers(la, lb), ra.Cmp(rb); got != want {
			t.Fatalf("CompareNumbers(%s, %s) = %d, want %d", la, lb, got, want)
		}
		if got, want := IsIntegral(la), ra.IsInt(); got != want {
			t.Fatalf("IsIntegral(%s) = %v, want %v", la, got, want)
		}
	})
}
