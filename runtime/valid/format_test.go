package valid

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestFormats(t *testing.T) {
	tests := []struct {
		name  string
		check func(string) bool
		in    string
		want  bool
	}{
		{"uri", URI, "https://example.com/a?b=c#d", true},
		{"uri", URI, "file:///tmp/x%20y", true},
		{"uri", URI, "test://static-text", true},
		{"uri", URI, "urn:isbn:0451450523", true},
		{"uri", URI, "relative/path", false},
		{"uri", URI, "", false},
		{"uri", URI, "http://[::1]:8080/", true},
		{"uri", URI, "http://::1:8080/", false},
		{"uri", URI, "http://[fe80::1%25en0]/", false},
		{"uri", URI, "http://a b", false},
		{"uri-template", URITemplate, "test://template/{id}/data", true},
		{"uri-template", URITemplate, "file:///{+path}{?q,r}", true},
		{"uri-template", URITemplate, "/relative/{x}", true},
		{"uri-template", URITemplate, "a{b", false},
		{"uri-template", URITemplate, "a}b", false},
		{"uri-template", URITemplate, "{{nested}}", false},
		{"byte", Base64, "", true},
		{"byte", Base64, "aGVsbG8=", true},
		{"byte", Base64, "aGVsbG8", false},
		{"byte", Base64, "aGVs\r\nbG8=", true},
		{"byte", Base64, "aGVsbG8==", false},
		{"byte", Base64, "a===", false},
		{"byte", Base64, "aG-sbG8=", false},
		{"byte", Base64, "aGVsbG8=aGVs", false},
	}
	for _, tt := range tests {
		if got := tt.check(tt.in); got != tt.want {
			t.Errorf("%s(%q) = %v, want %v", tt.name, tt.in, got, tt.want)
		}
	}
}

// Base64 agrees with encoding/base64, which the reference validator uses.
func FuzzBase64(f *testing.F) {
	for _, s := range []string{"", "aGVsbG8=", "aGVsbG8", "a===", "\n", "ab\r\n=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := base64.StdEncoding.DecodeString(s)
		if got := Base64(s); got != (err == nil) {
			t.Fatalf("Base64(%q) = %v, encoding/base64 says %v", s, got, err)
		}
	})
}

// A URI template's braces are balanced and unnested.
func FuzzURITemplate(f *testing.F) {
	for _, s := range []string{"test://template/{id}/data", "a{b", "{{x}}", "http://[::1]/{x}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !URITemplate(s) {
			return
		}
		depth := 0
		for _, c := range s {
			switch c {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth < 0 || depth > 1 {
				t.Fatalf("%q accepted with unbalanced braces", s)
			}
		}
		if depth != 0 {
			t.Fatalf("%q accepted with an open brace", s)
		}
	})
}

func TestCollectorPointers(t *testing.T) {
	var c Collector
	for i := range 20 { // past the fixed levels
		if i%2 == 0 {
			c.Enter("a/b~")
		} else {
			c.EnterIndex(i)
		}
	}
	c.FailMember("m", "required", "missing")
	for range 20 {
		c.Leave()
	}
	c.Enter("x")
	c.Fail("const", "wrong")
	c.Leave()
	err := c.Err().(*Error)
	want := strings.Repeat("/a~1b~0/", 1)
	if len(err.Violations) != 2 || !strings.HasPrefix(err.Violations[0].Pointer, want) || !strings.HasSuffix(err.Violations[0].Pointer, "/19/m") || err.Violations[1].Pointer != "/x" {
		t.Errorf("pointers: %+v", err.Violations)
	}
	if n := strings.Count(err.Violations[0].Pointer, "/"); n != 21 {
		t.Errorf("%d levels in %s", n, err.Violations[0].Pointer)
	}
}

func BenchmarkCollectorValid(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var c Collector
		c.Enter("params")
		c.Enter("arguments")
		c.Leave()
		c.Leave()
		if c.Err() != nil {
			b.Fatal("no violations expected")
		}
	}
}
