package wire

import (
	"cmp"
	"math"
	"strconv"
)

// decimal is a validated number literal split into its parts, so that its
// exact value can be reasoned about without floating point:
// value = ±digits × 10^exp, where digits = intPart followed by fracPart and
// exp already accounts for the fraction.
type decimal struct {
	neg      bool
	intPart  []byte
	fracPart []byte
	exp      int64
}

// maxExp bounds exponents; anything larger is far beyond every Go numeric
// type, and clamping keeps the arithmetic below from overflowing.
const maxExp = 1 << 40

// splitNumber splits a literal already validated by scanNumber.
func splitNumber(lit []byte) decimal {
	var d decimal
	i := 0
	if lit[0] == '-' {
		d.neg = true
		i++
	}
	start := i
	for i < len(lit) && isDigit(lit[i]) {
		i++
	}
	d.intPart = lit[start:i]
	if i < len(lit) && lit[i] == '.' {
		i++
		start = i
		for i < len(lit) && isDigit(lit[i]) {
			i++
		}
		d.fracPart = lit[start:i]
	}
	if i < len(lit) { // exponent
		i++
		eneg := false
		if lit[i] == '+' || lit[i] == '-' {
			eneg = lit[i] == '-'
			i++
		}
		var e int64
		for ; i < len(lit) && e < maxExp; i++ {
			e = e*10 + int64(lit[i]-'0')
		}
		e = min(e, maxExp)
		if eneg {
			e = -e
		}
		d.exp = e
	}
	d.exp -= int64(len(d.fracPart))
	return d
}

func (d *decimal) digit(k int) byte {
	if k < len(d.intPart) {
		return d.intPart[k]
	}
	return d.fracPart[k-len(d.intPart)]
}

// significant returns the index range [first, last] of the significant
// digits (leading and trailing zeros stripped) and the exponent that goes
// with them. ok is false when the value is zero.
func (d *decimal) significant() (first, last int, exp int64, ok bool) {
	n := len(d.intPart) + len(d.fracPart)
	first = 0
	for first < n && d.digit(first) == '0' {
		first++
	}
	if first == n {
		return 0, 0, 0, false
	}
	last = n - 1
	for d.digit(last) == '0' {
		last--
	}
	return first, last, d.exp + int64(n-1-last), true
}

// parseInt64Slow converts a validated literal that the Int64 fast path did
// not take (fraction, exponent or many digits). It accepts any literal whose
// value is an integer in range, e.g. 5.0, 5e2 or 1.5e1.
func parseInt64Slow(off int, lit []byte) (int64, error) {
	d := splitNumber(lit)
	first, last, exp, ok := d.significant()
	if !ok {
		return 0, nil
	}
	if exp < 0 {
		return 0, valueErrorf(off, lit, " is not an integer")
	}
	// 19 significant digits fit a uint64; more cannot fit an int64.
	if int64(last-first+1)+exp > 19 {
		return 0, valueErrorf(off, lit, " is out of range for int64")
	}
	var u uint64
	for k := first; k <= last; k++ {
		u = u*10 + uint64(d.digit(k)-'0')
	}
	for ; exp > 0; exp-- {
		if u > math.MaxUint64/10 {
			return 0, valueErrorf(off, lit, " is out of range for int64")
		}
		u *= 10
	}
	if d.neg {
		if u > 1<<63 {
			return 0, valueErrorf(off, lit, " is out of range for int64")
		}
		return -int64(u), nil
	}
	if u > math.MaxInt64 {
		return 0, valueErrorf(off, lit, " is out of range for int64")
	}
	return int64(u), nil
}

// valueErrorf builds "number <lit><msg>", shortening absurdly long literals.
func valueErrorf(off int, lit []byte, msg string) error {
	s := string(lit)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return &ValueError{Offset: off, Msg: "number " + s + msg}
}

// canonicalNumber returns a string that is equal for two literals exactly
// when their values are equal (used by Equal): "0", or the sign, the
// significant digits and the exponent. Exponents beyond ±2^40 are clamped,
// so astronomically large or small values may compare equal.
func canonicalNumber(lit []byte) string {
	d := splitNumber(lit)
	first, last, exp, ok := d.significant()
	if !ok {
		return "0"
	}
	b := make([]byte, 0, last-first+24)
	if d.neg {
		b = append(b, '-')
	}
	for k := first; k <= last; k++ {
		b = append(b, d.digit(k))
	}
	b = append(b, 'e')
	b = strconv.AppendInt(b, exp, 10)
	return string(b)
}

// CompareNumbers compares the values of two JSON number literals exactly,
// without floating point: -1 when a < b, 0 when they are equal (1, 1.0 and
// 10e-1 are), +1 when a > b. Its time is linear in the literals' lengths,
// whatever their exponents (1e999999 costs what 1e9 does), so that it is
// safe on numbers a peer sends. Exponents beyond ±2^40 are clamped, so
// values that far out (1e1099511627776) may compare equal or in either
// order. The literals must be valid JSON numbers, as the Decoder's Number
// returns them; anything else may panic.
func CompareNumbers(a, b []byte) int {
	da, db := splitNumber(a), splitNumber(b)
	fa, la, ea, nza := da.significant()
	fb, lb, eb, nzb := db.significant()
	sa, sb := sign(da.neg, nza), sign(db.neg, nzb)
	if sa != sb || sa == 0 {
		return cmp.Compare(sa, sb)
	}
	// Both non-zero, of one sign: compare magnitudes, the position of the
	// leading digit first (value = 0.d1d2… × 10^order), then the digits.
	oa, ob := ea+int64(la-fa+1), eb+int64(lb-fb+1)
	c := cmp.Compare(oa, ob)
	for k := 0; c == 0; k++ {
		ia, ib := fa+k, fb+k
		switch {
		case ia > la && ib > lb:
			return 0
		case ia > la:
			c = -1
		case ib > lb:
			c = 1
		default:
			c = cmp.Compare(da.digit(ia), db.digit(ib))
		}
	}
	return c * sa
}

// IsIntegral reports whether a JSON number literal's value is an integer,
// as JSON Schema counts them (1.0 and 1e3 are, 1.5 and 1e-3 are not), in
// time linear in the literal's length. lit must be a valid JSON number, as
// for CompareNumbers.
func IsIntegral(lit []byte) bool {
	d := splitNumber(lit)
	_, _, exp, nonZero := d.significant()
	return !nonZero || exp >= 0
}

func sign(neg, nonZero bool) int {
	switch {
	case !nonZero:
		return 0
	case neg:
		return -1
	}
	return 1
}
