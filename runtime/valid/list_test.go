package valid_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/valid"
)

// TestList: an error lists every violation up to MaxListed and counts the
// rest, so the useful one is not hidden behind the first.
func TestList(t *testing.T) {
	vs := func(n int) []valid.Violation {
		var out []valid.Violation
		for i := range n {
			out = append(out, valid.Violation{Pointer: "/a" + strconv.Itoa(i), Message: "required"})
		}
		return out
	}
	tests := []struct {
		n    int
		want string
	}{
		{1, "/aN: required"},
		{2, "/aN: required; /aN: required"},
		{valid.MaxListed, strings.Repeat("; /aN: required", valid.MaxListed)[2:]},
		{valid.MaxListed + 3, strings.Repeat("; /aN: required", valid.MaxListed)[2:] + " (and 3 more)"},
	}
	for _, tt := range tests {
		got := (&valid.Error{Violations: vs(tt.n)}).Error()
		for i := range tt.n {
			got = strings.Replace(got, "/a"+strconv.Itoa(i)+":", "/aN:", 1)
		}
		if got != tt.want {
			t.Errorf("%d violations: %q, want %q", tt.n, got, tt.want)
		}
	}
}
