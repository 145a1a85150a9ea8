package main

import (
	"slices"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "npx -y @modelcontextprotocol/server-memory", want: []string{"npx", "-y", "@modelcontextprotocol/server-memory"}},
		{in: `  server  'a b'  "c \"d\" \\e"  f\ g `, want: []string{"server", "a b", `c "d" \e`, "f g"}},
		{in: `x ''`, want: []string{"x", ""}},
		{in: `x 'open`, err: true},
		{in: `x "open`, err: true},
		{in: "   ", err: true},
	} {
		got, err := splitCommand(tc.in)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("splitCommand(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}
