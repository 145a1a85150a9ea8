package oauth

import (
	"strings"
	"testing"
)

func FuzzParseChallenge(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"`,
		`Bearer error="insufficient_scope", scope="files:read"`,
		`DPoP algs="ES256", Bearer realm="x"`,
		`Bearer`, `Basic realm="a\"b"`, `, ,`, `Bearer a=`, `"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range ParseChallenge(s) {
			if c.Scheme == "" || strings.ContainsAny(c.Scheme, " ,\"") {
				t.Fatalf("scheme %q from %q", c.Scheme, s)
			}
		}
	})
}
