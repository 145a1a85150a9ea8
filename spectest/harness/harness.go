// Package harness drives the packages mcpgen generates for the official
// revisions, through a registry of their types that specgen writes next to
// each package.
package harness

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Value is what every generated type (or union member) can do.
type Value interface {
	EncodeJSON(*wire.Encoder)
	Validate() error
}

// Decoder decodes one JSON text into a generated type.
type Decoder func([]byte) (Value, error)

// Registry lists a generated package's types by definition name.
type Registry struct {
	// Revision is the spec directory name (2026-07-28, draft...).
	Revision string
	Types    map[string]Decoder
	// Shared decodes BenchTypes in shared mode (wire.UnmarshalShared).
	Shared map[string]Decoder
	// Raw lists the definitions kept as raw JSON text.
	Raw map[string]bool
}

// Case is one JSON document to decode as Type.
type Case struct {
	Name string // for test names: folder/file
	Type string
	Data []byte
}

// Examples returns the spec's example messages of the revision
// (examples/<Type>/*.json).
func Examples(t testing.TB, rev string) []Case {
	return load(t, filepath.Join(specdir.Dir(t, rev), "examples"))
}

// Vectors returns our own round-trip vectors (testdata/vectors/<Type>/*.json)
// for the types the revision defines.
func Vectors(t testing.TB, reg Registry) []Case {
	var out []Case
	for _, c := range load(t, filepath.Join(moduleDir(t), "testdata", "vectors")) {
		if _, ok := reg.Types[c.Type]; ok {
			out = append(out, c)
		}
	}
	return out
}

func load(t testing.TB, dir string) []Case {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []Case
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		typ := filepath.Base(filepath.Dir(p))
		out = append(out, Case{Name: typ + "/" + strings.TrimSuffix(filepath.Base(p), ".json"), Type: typ, Data: data})
	}
	return out
}

// moduleDir is the spectest module's directory.
func moduleDir(t testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			t.Fatal("spectest module not found")
		}
	}
}

// RoundTrip decodes every example and vector into its type and checks that
// encoding gives back JSON equal to the input: the same members, the same
// values, numbers and strings of the same kinds.
func RoundTrip(t *testing.T, reg Registry) {
	cases := append(Examples(t, reg.Revision), Vectors(t, reg)...)
	if len(cases) == 0 {
		t.Skip("no examples or vectors for this revision")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			dec := reg.Types[c.Type]
			if dec == nil {
				t.Fatalf("example folder %s names no generated type", c.Type)
			}
			v, err := dec(c.Data)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			out, err := wire.Marshal(v)
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			eq, err := wire.Equal(c.Data, out)
			if err != nil {
				t.Fatalf("comparing: %v", err)
			}
			if !eq {
				t.Errorf("round trip changed the value:\n in: %s\nout: %s", compact(c.Data), out)
			}
		})
	}
}

func compact(b []byte) string {
	return strings.Join(strings.Fields(string(b)), " ")
}
