package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/schema"
)

// TestSide: a package generated for one side (--side) describes to the
// runtime only what that side receives — sampling/createMessage, which
// only servers send, loses its serving on the server side and keeps it on
// the client side; tools/call the other way —, names its side, and records
// it in provenance.gen.go. "both" is the default, byte for byte.
func TestSide(t *testing.T) {
	root := os.Getenv("MCPGEN_SPEC_ROOT")
	if root == "" {
		root = "../../shared/mcp-schema" // the workplace's layout: ../shared beside the repository
	}
	spec, err := schema.Load(filepath.Join(root, "2025-11-25"))
	if err != nil {
		t.Fatal(err)
	}
	generate := func(side string) map[string]string {
		files, err := gen.Generate(spec, gen.Options{Package: "v20251125", Version: "golden", Side: side})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range files {
			out[f.Name] = string(f.Content)
		}
		return out
	}
	// entry is the descriptor's entry of method constant name.
	entry := func(src, name string) string {
		i := strings.Index(src, "\t\t"+name+": {\n")
		if i < 0 {
			t.Fatalf("no entry %s", name)
		}
		j := strings.Index(src[i:], "\n\t\t},\n")
		return src[i : i+j]
	}
	both, def := generate("both"), generate("")
	for name := range def {
		if both[name] != def[name] {
			t.Errorf("--side both differs from the default in %s", name)
		}
	}
	for _, tc := range []struct {
		side, mark, served, unserved string
	}{
		{"server", "protocol.ServerSide", "MethodToolsCall", "MethodSamplingCreateMessage"},
		{"client", "protocol.ClientSide", "MethodSamplingCreateMessage", "MethodToolsCall"},
	} {
		files := generate(tc.side)
		m := files["methods.gen.go"]
		if !strings.Contains(m, tc.mark) {
			t.Errorf("--side %s: descriptor lacks %s", tc.side, tc.mark)
		}
		if e := entry(m, tc.served); !strings.Contains(e, "Serve:") || !strings.Contains(e, "ValidateParams:") {
			t.Errorf("--side %s: %s lost its serving:\n%s", tc.side, tc.served, e)
		}
		if e := entry(m, tc.unserved); strings.Contains(e, "Serve:") || strings.Contains(e, "ValidateParams:") || strings.Contains(e, "HandlerType:") {
			t.Errorf("--side %s: %s is still served:\n%s", tc.side, tc.unserved, e)
		}
		if !strings.Contains(files[gen.ProvenanceFile], "side         "+tc.side) {
			t.Errorf("--side %s: provenance lacks the side:\n%s", tc.side, files[gen.ProvenanceFile])
		}
		p, err := gen.ReadProvenance([]byte(files[gen.ProvenanceFile]))
		if err != nil || p.Side != tc.side {
			t.Errorf("--side %s: ReadProvenance = %+v, %v", tc.side, p, err)
		}
	}
	if _, err := gen.Generate(spec, gen.Options{Package: "v20251125", Side: "middle"}); err == nil {
		t.Error("--side middle: no error")
	}
}
