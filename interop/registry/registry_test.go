package registry

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apiv0 "github.com/modelcontextprotocol/registry/pkg/api/v0"
	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/gen/fromgo"
)

// registrySchema compiles the registry's published server.json schema,
// from the module go.mod pins.
func registrySchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/modelcontextprotocol/registry").Output()
	if err != nil {
		t.Fatalf("locating the registry module: %v", err)
	}
	path := filepath.Join(strings.TrimSpace(string(out)), "docs", "reference", "server-json", "draft", "server.schema.json")
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	s, err := c.Compile(path)
	if err != nil {
		t.Fatalf("compiling %s: %v", path, err)
	}
	return s
}

// TestServerJSON: the server.json of examples/hello and examples/everything,
// with packages and remotes, is valid by the registry's schema and decodes
// into its Go type with the values given.
func TestServerJSON(t *testing.T) {
	schema := registrySchema(t)
	for _, c := range []struct {
		dir string
		o   fromgo.ServerOptions
	}{
		{"../../examples/hello", fromgo.ServerOptions{Name: "io.github.mcpgen/hello", Version: "1.0.0", Description: "Greets, adds and writes haiku: the mcpgen hello server.",
			Repository: "https://github.com/mcpgen/mcpgen", Remotes: []string{"streamable-http=https://hello.example.com/mcp"}, Packages: []string{"oci=ghcr.io/mcpgen/hello:1.0.0"}}},
		{"../../examples/everything", fromgo.ServerOptions{Name: "io.github.mcpgen/everything", Version: "0.1.0-beta.1", Title: "Everything",
			Description: "Every feature of every MCP revision, from one binary.", WebsiteURL: "https://mcpgen.dev",
			Remotes: []string{"streamable-http=https://everything.example.com/mcp", "sse=https://everything.example.com/sse"}, Packages: []string{"npm=@mcpgen/everything@0.1.0-beta.1"}}},
	} {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			out, err := fromgo.Generate(fromgo.Options{Dir: c.dir})
			if err != nil {
				t.Fatal(err)
			}
			// The examples declare every kind of item and regenerate clean.
			if len(out.Warnings) > 0 {
				t.Errorf("mcpgen tools warns:\n%s", strings.Join(out.Warnings, "\n"))
			}
			b, warnings, err := out.ServerJSON(c.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) > 0 {
				t.Errorf("server.json warns:\n%s", strings.Join(warnings, "\n"))
			}
			var v any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if err := schema.Validate(v); err != nil {
				t.Fatalf("the registry's schema refuses it: %v\n%s", err, b)
			}
			var sj apiv0.ServerJSON
			d := json.NewDecoder(bytes.NewReader(b))
			d.DisallowUnknownFields()
			if err := d.Decode(&sj); err != nil {
				t.Fatalf("the registry's Go type refuses it: %v", err)
			}
			if sj.Name != c.o.Name || sj.Version != c.o.Version || len(sj.Remotes) != len(c.o.Remotes) || len(sj.Packages) != len(c.o.Packages) {
				t.Errorf("decoded %+v", sj)
			}
		})
	}
}

// TestServerJSONRefusals: what the registry would refuse is refused
// before, naming the flag.
func TestServerJSONRefusals(t *testing.T) {
	out := &fromgo.Output{Doc: "Package x serves things."}
	for _, c := range []struct {
		o    fromgo.ServerOptions
		want string
	}{
		{fromgo.ServerOptions{Name: "weather", Version: "1.0.0", Remotes: []string{"sse=https://x/sse"}}, "--server-name"},
		{fromgo.ServerOptions{Name: "io.x/w", Version: "^1.0.0", Remotes: []string{"sse=https://x/sse"}}, "not a range"},
		{fromgo.ServerOptions{Name: "io.x/w", Version: "1.0.0"}, "--server-package or --server-remote"},
		{fromgo.ServerOptions{Name: "io.x/w", Version: "1.0.0", Packages: []string{"go=github.com/x/w"}}, "unknown registry type"},
		{fromgo.ServerOptions{Name: "io.x/w", Version: "1.0.0", Remotes: []string{"sse=ftp://x"}}, "https://"},
		{fromgo.ServerOptions{Name: "io.x/w", Version: "1.0.0", Description: strings.Repeat("x", 101), Remotes: []string{"sse=https://x/sse"}}, "at most 100"},
	} {
		if _, _, err := out.ServerJSON(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error with %q", c.o, err, c.want)
		}
	}
}
