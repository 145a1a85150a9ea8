package main

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
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

func TestBearerAuth(t *testing.T) {
	auth, err := bearerAuth([]string{"s3cret=alice", "other=bob"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ header, principal, err string }{
		{"Bearer s3cret", "alice", ""},
		{"Bearer other", "bob", ""},
		{"Bearer wrong", "", "invalid_token"},
		{"", "", "a bearer token is required"},
		{"Basic s3cret", "", "a bearer token is required"},
	} {
		r := httptest.NewRequest("POST", "http://127.0.0.1/mcp", nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		ctx, err := auth(r)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: %v, want an error saying %q", tc.header, err, tc.err)
		case tc.err == "" && (err != nil || rt.PrincipalFrom(ctx) != tc.principal):
			t.Errorf("%q: %v, principal %q; want %q", tc.header, err, rt.PrincipalFrom(ctx), tc.principal)
		}
	}
	if _, err := bearerAuth([]string{"no-principal"}); err == nil || strings.Contains(err.Error(), "no-principal") {
		t.Errorf("a spec without a principal: %v (and the token must not be echoed)", err)
	}
}

// TestBadFlags: flags that cannot work are refused before anything
// starts, naming the flag.
func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--stdio", "x", "--backend-per", "user"}, `--backend-per "user": want shared, principal or session`},
		{[]string{"--stdio", "x", "--url", "http://127.0.0.1:1/mcp"}, "one of them"},
		{[]string{}, "name the backend"},
		{[]string{"--stdio", "x", "--token", "t=p"}, "--token needs --http"},
		{[]string{"--stdio", "x", "--token", "nopincipal"}, "want TOKEN=PRINCIPAL"},
		{[]string{"--stdio", "'open"}, "--stdio: unterminated single quote"},
		{[]string{"--stdio", "x", "extra"}, "unexpected arguments"},
		{[]string{"--stdio", "x", "--redis", "redis://127.0.0.1:1/0"}, "--redis needs --http"},
		{[]string{"--stdio", "x", "--http", ":0", "--redis", "redis://a", "--redis-cluster", "redis://b"}, "name one"},
		{[]string{"--stdio", "x", "--http", ":0", "--redis", "http://nope"}, "--redis: "},
	} {
		if err := run(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v; want an error with %q", tc.args, err, tc.want)
		}
	}
}
