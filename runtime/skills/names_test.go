package skills

import (
	"regexp"
	"strings"
	"testing"
)

// TestNamesAgreeWithRegexps: ValidName and isRegName, written by hand to
// keep package regexp out of servers, accept exactly what the regular
// expressions of the rules accept, on every string of up to three
// characters from an alphabet of the interesting ones and on the lengths
// at the limit.
func TestNamesAgreeWithRegexps(t *testing.T) {
	nameRule := regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
	regName := regexp.MustCompile(`^(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+$`)
	check := func(s string) {
		t.Helper()
		if got, want := ValidName(s), nameRule.MatchString(s) && !strings.Contains(s, "--"); got != want {
			t.Fatalf("ValidName(%q) = %v, the rule says %v", s, got, want)
		}
		if got, want := isRegName(s), regName.MatchString(s); got != want {
			t.Fatalf("isRegName(%q) = %v, the rule says %v", s, got, want)
		}
	}
	alphabet := []byte("az09-A%fG._~!$&'()*+,;=/ :\x00\xc3")
	var gen func(prefix []byte, n int)
	gen = func(prefix []byte, n int) {
		check(string(prefix))
		if n == 0 {
			return
		}
		for _, c := range alphabet {
			gen(append(prefix, c), n-1)
		}
	}
	gen(nil, 3)
	for _, s := range []string{
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a", 65),
		"a-" + strings.Repeat("b", 62), "a-b-c", "a--b", "-a", "a-",
		"%2F", "%2", "%zz", "host%41b", "ex%aample",
	} {
		check(s)
	}
}
