package specsource

import (
	"strings"
	"testing"
)

func TestParsePins(t *testing.T) {
	const c = "commit 0123456789012345678901234567890123456789\n"
	const a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	tests := []struct {
		name, src, err string
	}{
		{"ok", "# comment\n\n" + c + a + "  r1/schema.json\n" + a + "  r1/schema.ts\n", ""},
		{"short commit", "commit 0123abc\n", "is not a full commit hash"},
		{"no commit", a + "  r1/schema.json\n", "checksum before any commit line"},
		{"bad line", c + "xyz  r1/schema.json\n", "want \"<sha256>  <revision>/<file>\""},
		{"unknown file", c + a + "  r1/schema.yaml\n", "want \"<sha256>  <revision>/<file>\""},
		{"missing file", c + a + "  r1/schema.json\n", "r1 has no checksum for schema.ts"},
		{"two commits", c + a + "  r1/schema.json\ncommit 1111111111111111111111111111111111111111\n" + a + "  r1/schema.ts\n", "pinned at two commits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pins, err := parsePins([]byte(tt.src))
			if tt.err == "" {
				if err != nil || len(pins) != 1 || pins[0].SHA256[SchemaTS] != strings.Repeat("a", 64) {
					t.Fatalf("%v %v", pins, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
	if _, err := parsePins(pinsTxt); err != nil {
		t.Fatalf("pins.txt: %v", err)
	}
}

func TestCheckNames(t *testing.T) {
	for _, ok := range []string{"2025-11-25", "draft", "DRAFT-2026-v1", "2026-06-07-d4854bce"} {
		if err := CheckRevision(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "..", "a/b", "../x", ".hidden", "a..b", "a b"} {
		if CheckRevision(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
