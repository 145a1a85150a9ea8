package wire

import (
	"math/big"
	"strings"
	"testing"
)

// TestCompareNumbers holds CompareNumbers and IsIntegral to big.Rat's
// exact answers, and checks that huge exponents cost nothing more.
func TestCompareNumbers(t *testing.T) {
	lits := []string{"0", "-0", "0.0", "0e5", "1", "1.0", "10e-1", "0.1e1", "-1", "-1.0", "2", "1.5", "-1.5", "0.1", "0.10000000000000001",
		"0.30000000000000004", "0.3", "1e1", "10", "9.999", "100e-2", "123456789012345678901234567890", "123456789012345678901234567891",
		"1e-7", "0.0000001", "-0.0000001", "1E+2", "99.9999999999999999999", "1e300", "-1e300", "5e-324", "12.5e1", "125", "124.99"}
	for _, a := range lits {
		ra, _ := new(big.Rat).SetString(a)
		if got, want := IsIntegral([]byte(a)), ra.IsInt(); got != want {
			t.Errorf("IsIntegral(%s) = %v, want %v", a, got, want)
		}
		for _, b := range lits {
			rb, _ := new(big.Rat).SetString(b)
			if got, want := CompareNumbers([]byte(a), []byte(b)), ra.Cmp(rb); got != want {
				t.Errorf("CompareNumbers(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	huge := []byte("1e999999999")
	if CompareNumbers(huge, []byte("1e999999998")) != 1 || CompareNumbers([]byte("-"+string(huge)), []byte("-1")) != -1 || !IsIntegral(huge) || IsIntegral([]byte("1e-999999999")) {
		t.Error("huge exponents compared wrongly")
	}
	long := []byte("0." + strings.Repeat("9", 1<<20))
	if CompareNumbers(long, []byte("1")) != -1 || IsIntegral(long) {
		t.Error("a long literal compared wrongly")
	}
}
