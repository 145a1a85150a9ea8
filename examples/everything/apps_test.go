package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// extAppsSchema compiles one definition of the MCP Apps extension's own
// published schema (@modelcontextprotocol/ext-apps, pinned in interop/:
// dist/src/generated/schema.json).
func extAppsSchema(t *testing.T, def string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join(interopDir(t), "node_modules", "@modelcontextprotocol", "ext-apps", "dist", "src", "generated", "schema.json")
	c := jsonschema.NewCompiler()
	s, err := c.Compile(path + "#/$defs/" + def)
	if err != nil {
		t.Fatalf("compiling %s of %s: %v", def, path, err)
	}
	return s
}

// TestMCPApp: the everything server's MCP App (//mcp:app and a tool's
// app=) on every revision: the tool's _meta.ui is a McpUiToolMeta and the
// UI resource's (listed and read) a McpUiResourceMeta, by the extension's
// schema; the resource is text/html;profile=mcp-app; where _meta is not
// (before 2025-06-18) it is left out; the extension is declared where
// capabilities have extensions (2026-07-28).
func TestMCPApp(t *testing.T) {
	toolMeta, resourceMeta := extAppsSchema(t, "McpUiToolMeta"), extAppsSchema(t, "McpUiResourceMeta")
	srv := fullServer(t)
	for _, c := range []struct {
		version   string
		era       rt.Era
		meta, ext bool
	}{{"2024-11-05", rt.Stateful, false, false}, {"2025-03-26", rt.Stateful, false, false}, {"2025-06-18", rt.Stateful, true, false}, {"2025-11-25", rt.Stateful, true, false}, {"2026-07-28", rt.Stateless, true, true}} {
		t.Run(c.version, func(t *testing.T) {
			ctx := testContext(t)
			cs := connectRevision(t, srv, c.version, c.era)
			uiOf := func(obj map[string]any) any {
				m, _ := obj["_meta"].(map[string]any)
				return m["ui"]
			}
			check := func(what string, s *jsonschema.Schema, ui any) {
				t.Helper()
				if !c.meta {
					if ui != nil {
						t.Errorf("%s: _meta.ui on %s, which has no _meta there", what, c.version)
					}
					return
				}
				if ui == nil {
					t.Errorf("%s: no _meta.ui", what)
					return
				}
				if err := s.Validate(ui); err != nil {
					t.Errorf("%s: the extension's schema refuses _meta.ui %v: %v", what, ui, err)
				}
			}
			call := func(method, params string) map[string]any {
				var res wire.Raw
				if err := cs.Call(ctx, method, wire.Raw(params), &res); err != nil {
					t.Fatalf("%s: %v", method, err)
				}
				var m map[string]any
				if err := json.Unmarshal(res, &m); err != nil {
					t.Fatal(err)
				}
				return m
			}
			for _, tl := range call("tools/list", `{}`)["tools"].([]any) {
				if tool := tl.(map[string]any); tool["name"] == "show_counter" {
					check("show_counter", toolMeta, uiOf(tool))
				}
			}
			found := false
			for _, r := range call("resources/list", `{}`)["resources"].([]any) {
				if res := r.(map[string]any); res["uri"] == "ui://everything/counter.html" {
					found = true
					if res["mimeType"] != "text/html;profile=mcp-app" {
						t.Errorf("listed as %v", res["mimeType"])
					}
					check("resources/list", resourceMeta, uiOf(res))
				}
			}
			if !found {
				t.Fatal("the UI resource is not listed")
			}
			contents := call("resources/read", `{"uri":"ui://everything/counter.html"}`)["contents"].([]any)[0].(map[string]any)
			if contents["mimeType"] != "text/html;profile=mcp-app" || !strings.Contains(contents["text"].(string), "<html>") {
				t.Errorf("read %v", contents)
			}
			check("resources/read", resourceMeta, uiOf(contents))
			if got := strings.Contains(string(cs.ServerResult()), `"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}`); got != c.ext {
				t.Errorf("the extension declared: %v, want %v: %s", got, c.ext, cs.ServerResult())
			}
		})
	}
}
