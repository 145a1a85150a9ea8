package apidiff_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/gen"
	"github.com/mcpgen/mcpgen/gen/apidiff"
)

func str(name string, fields ...gen.APIField) gen.APIType {
	return gen.APIType{Name: name, Kind: "struct", Def: true, Fields: fields, Open: true}
}

func fld(json, typ string, required bool) gen.APIField {
	return gen.APIField{Name: strings.ToUpper(json[:1]) + json[1:], JSON: json, Type: typ, Required: required}
}

// Each rule: what is reported, and whether (and how) it breaks user code.
func TestRules(t *testing.T) {
	tool := str("Tool", fld("name", "string", true), fld("title", "wire.Opt[string]", false))
	tests := []struct {
		name     string
		old, new gen.API
		want     []apidiff.Change
	}{
		{"type added", gen.API{}, gen.API{Types: []gen.APIType{tool}},
			[]apidiff.Change{{Kind: "type", Op: "added", Name: "Tool", New: "struct"}}},
		{"type removed, with a rename hint", gen.API{Types: []gen.APIType{tool}}, gen.API{Types: []gen.APIType{{Name: "Tool2", Kind: "struct", Def: true, Fields: tool.Fields}}},
			[]apidiff.Change{
				{Kind: "type", Op: "removed", Name: "Tool", Old: "struct", Breaks: "compile", Note: "same shape as the new Tool2 (renamed?)"},
				{Kind: "type", Op: "added", Name: "Tool2", New: "struct"},
			}},
		{"kind changed", gen.API{Types: []gen.APIType{tool}}, gen.API{Types: []gen.APIType{{Name: "Tool", Kind: "union", Def: true, Members: []string{"A"}}}},
			[]apidiff.Change{{Kind: "type", Op: "changed", Name: "Tool", Old: "struct", New: "union", Breaks: "compile", Note: "declared differently: code using it needs rewriting"}}},
		{"alias target", gen.API{Types: []gen.APIType{{Name: "C", Kind: "alias", Underlying: "string"}}}, gen.API{Types: []gen.APIType{{Name: "C", Kind: "alias", Underlying: "int64"}}},
			[]apidiff.Change{{Kind: "type", Op: "changed", Name: "C", Old: "alias string", New: "alias int64", Inline: true, Breaks: "compile"}}},
		{"fields", gen.API{Types: []gen.APIType{tool}}, gen.API{Types: []gen.APIType{str("Tool",
			fld("name", "wire.Opt[string]", false), fld("icons", "[]Icon", false), fld("resultType", "ResultType", true))}},
			[]apidiff.Change{
				{Kind: "field", Op: "added", Type: "Tool", Name: "Icons", JSON: "icons", New: "[]Icon, optional"},
				{Kind: "field", Op: "changed", Type: "Tool", Name: "Name", JSON: "name", Old: "string, required", New: "wire.Opt[string], optional", Breaks: "compile", Note: "optional now"},
				{Kind: "field", Op: "added", Type: "Tool", Name: "ResultType", JSON: "resultType", New: "ResultType, required", Breaks: "runtime", Note: "required: values built without it fail Validate"},
				{Kind: "field", Op: "removed", Type: "Tool", Name: "Title", JSON: "title", Old: "wire.Opt[string], optional", Breaks: "compile"},
			}},
		{"optionality of a pointer", gen.API{Types: []gen.APIType{str("P", fld("meta", "*Meta", false))}}, gen.API{Types: []gen.APIType{str("P", fld("meta", "*Meta", true))}},
			[]apidiff.Change{{Kind: "field", Op: "changed", Type: "P", Name: "Meta", JSON: "meta", Old: "*Meta, optional", New: "*Meta, required", Breaks: "runtime", Note: "required now: values built without it fail Validate"}}},
		{"const members", gen.API{Types: []gen.APIType{str("R", gen.APIField{Name: "JSONRPC", JSON: "jsonrpc", Type: `const "2.0"`, Const: `"2.0"`, Required: true})}}, gen.API{Types: []gen.APIType{str("R")}},
			[]apidiff.Change{{Kind: "field", Op: "removed", Type: "R", Name: "JSONRPC", JSON: "jsonrpc", Old: `const "2.0", required`, Breaks: "runtime", Note: "no longer written"}}},
		{"capabilities", gen.API{Types: []gen.APIType{str("ServerCapabilities", fld("tasks", "*ServerCapabilitiesTasks", false))}}, gen.API{Types: []gen.APIType{str("ServerCapabilities", fld("extensions", "ServerCapabilitiesExtensions", false))}},
			[]apidiff.Change{
				{Kind: "capability", Op: "added", Type: "ServerCapabilities", Name: "Extensions", JSON: "extensions", New: "ServerCapabilitiesExtensions, optional"},
				{Kind: "capability", Op: "removed", Type: "ServerCapabilities", Name: "Tasks", JSON: "tasks", Old: "*ServerCapabilitiesTasks, optional", Breaks: "compile"},
			}},
		{"closed struct", gen.API{Types: []gen.APIType{str("S")}}, gen.API{Types: []gen.APIType{{Name: "S", Kind: "struct", Def: true}}},
			[]apidiff.Change{{Kind: "field", Op: "removed", Type: "S", Name: "Extra", Old: "wire.Members", Breaks: "compile", Note: "unnamed members are no longer allowed"}}},
		{"union members", gen.API{Types: []gen.APIType{{Name: "U", Kind: "union", Def: true, Members: []string{"A", "B"}}}}, gen.API{Types: []gen.APIType{{Name: "U", Kind: "union", Def: true, Members: []string{"B", "C"}}}},
			[]apidiff.Change{
				{Kind: "member", Op: "removed", Type: "U", Name: "A", Breaks: "compile", Note: "type switch cases and assignments of it no longer compile"},
				{Kind: "member", Op: "added", Type: "U", Name: "C", Note: "values of it decoded as UnknownU before"},
			}},
		{"enum values", gen.API{Types: []gen.APIType{{Name: "Role", Kind: "enum", Def: true, Values: []string{"user", "assistant"}}}}, gen.API{Types: []gen.APIType{{Name: "Role", Kind: "enum", Def: true, Values: []string{"user", "system"}, EnumOpen: true}}},
			[]apidiff.Change{
				{Kind: "type", Op: "changed", Name: "Role", Old: "closed enum", New: "open enum", Note: "values it does not list are valid now"},
				{Kind: "value", Op: "removed", Type: "Role", Name: "RoleAssistant", JSON: "assistant", Breaks: "compile"},
				{Kind: "value", Op: "added", Type: "Role", Name: "RoleSystem", JSON: "system", Breaks: "runtime", Note: "a switch over Role without a default misses it"},
			}},
		{"deprecations", gen.API{Types: []gen.APIType{tool}}, gen.API{Types: []gen.APIType{{Name: "Tool", Kind: "struct", Def: true, Open: true, Deprecated: true, Fields: []gen.APIField{tool.Fields[0], {Name: "Title", JSON: "title", Type: "wire.Opt[string]", Deprecated: true}}}}},
			[]apidiff.Change{
				{Kind: "type", Op: "deprecated", Name: "Tool"},
				{Kind: "field", Op: "deprecated", Type: "Tool", Name: "Title", JSON: "title"},
			}},
		{"methods", gen.API{Methods: []gen.APIMethod{
			{Method: "ping", Go: "Ping", Kind: "request", FromClient: true, FromServer: true},
			{Method: "roots/list", Go: "ListRoots", Kind: "request", FromServer: true, Handler: true, Params: "*RequestParams", Reply: "*ListRootsResult"},
			{Method: "notifications/progress", Go: "Progress", Kind: "notification", FromClient: true, FromServer: true},
		}}, gen.API{Methods: []gen.APIMethod{
			{Method: "server/discover", Go: "Discover", Kind: "request", FromClient: true},
			{Method: "roots/list", Go: "ListRoots", Kind: "request", FromServer: true, Handler: true, Params: "*ListRootsRequestParams", Reply: "*ListRootsResult"},
			{Method: "notifications/progress", Go: "Progress", Kind: "notification", FromServer: true, Handler: true},
		}},
			[]apidiff.Change{
				{Kind: "method", Op: "changed", Name: "Progress", JSON: "notifications/progress", Old: "both sides send it", New: "server → client", Breaks: "runtime", Note: "sent by others now"},
				{Kind: "method", Op: "changed", Name: "Progress", JSON: "notifications/progress", Old: "answered by the runtime", New: "answered by handlers", Breaks: "runtime", Note: "handlers answer it now: implement Progress to serve it"},
				{Kind: "method", Op: "removed", Name: "Ping", JSON: "ping", Old: "request, both sides send it, answered by the runtime", Breaks: "compile", Note: "its constant is gone"},
				{Kind: "method", Op: "changed", Name: "ListRoots", JSON: "roots/list", Old: "params *RequestParams", New: "params *ListRootsRequestParams", Breaks: "compile", Note: "handlers and calls need the new params type"},
				{Kind: "method", Op: "added", Name: "Discover", JSON: "server/discover", New: "request, client → server, answered by the runtime"},
			}},
		{"constants", gen.API{Constants: []gen.APIConst{{Name: "CodeA", Value: "-1", ErrorCode: true}, {Name: "CodeB", Value: "-2", ErrorCode: true}, {Name: "LatestProtocolVersion", Value: `"1"`}}},
			gen.API{Constants: []gen.APIConst{{Name: "CodeB", Value: "-3", ErrorCode: true}, {Name: "CodeC", Value: "-4", ErrorCode: true}, {Name: "LatestProtocolVersion", Value: `"2"`}}},
			[]apidiff.Change{
				{Kind: "code", Op: "removed", Name: "CodeA", Old: "-1", Breaks: "compile"},
				{Kind: "code", Op: "changed", Name: "CodeB", Old: "-2", New: "-3", Breaks: "runtime", Note: "peers send and expect the new code"},
				{Kind: "code", Op: "added", Name: "CodeC", New: "-4"},
				{Kind: "constant", Op: "changed", Name: "LatestProtocolVersion", Old: `"1"`, New: `"2"`},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := apidiff.Compare(&tt.old, &tt.new)
			got, _ := json.MarshalIndent(r.Changes, "", "  ")
			want, _ := json.MarshalIndent(tt.want, "", "  ")
			if !bytes.Equal(got, want) {
				t.Errorf("changes:\n%s\nwant:\n%s", got, want)
			}
			breaking := 0
			for _, c := range tt.want {
				if c.Breaks != "" {
					breaking++
				}
			}
			if r.Summary.Changes != len(tt.want) || r.Summary.Breaking != breaking || len(r.OnlyBreaking().Changes) != breaking {
				t.Errorf("summary %+v", r.Summary)
			}
		})
	}
}

// The text form marks what breaks and counts per kind; the JSON form has
// the documented shape.
func TestOutput(t *testing.T) {
	old := gen.API{Revision: "A", SchemaSHA256: "aa", Types: []gen.APIType{str("Tool", fld("name", "string", true), fld("title", "wire.Opt[string]", false))}}
	new := gen.API{Revision: "B", SchemaSHA256: "bb", Types: []gen.APIType{str("Tool", fld("name", "string", true), fld("icons", "[]Icon", false))}}
	r := apidiff.Compare(&old, &new)
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	wantText := `mcpgen diff A → B: 2 changes; 1 break code written for A (1 ! stop compiling, 0 ~ compile but behave differently)

fields: 1 added, 1 removed
  added    Tool.Icons ("icons")  []Icon, optional
! removed  Tool.Title ("title")  wire.Opt[string], optional
`
	if text.String() != wantText {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), wantText)
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	wantJSON := `{
  "from": {
    "revision": "A",
    "schemaSha256": "aa"
  },
  "to": {
    "revision": "B",
    "schemaSha256": "bb"
  },
  "summary": {
    "changes": 2,
    "breaking": 1,
    "compile": 1,
    "runtime": 0,
    "kinds": {
      "field": {
        "added": 1,
        "removed": 1,
        "changed": 0,
        "deprecated": 0
      }
    }
  },
  "changes": [
    {
      "kind": "field",
      "change": "added",
      "type": "Tool",
      "name": "Icons",
      "json": "icons",
      "new": "[]Icon, optional"
    },
    {
      "kind": "field",
      "change": "removed",
      "type": "Tool",
      "name": "Title",
      "json": "title",
      "old": "wire.Opt[string], optional",
      "breaks": "compile"
    }
  ]
}
`
	if js.String() != wantJSON {
		t.Errorf("json:\n%s\nwant:\n%s", js.String(), wantJSON)
	}
	var none bytes.Buffer
	apidiff.Compare(&old, &old).WriteText(&none)
	if none.String() != "mcpgen diff A → A: 0 changes\n" {
		t.Errorf("no changes: %q", none.String())
	}
}
