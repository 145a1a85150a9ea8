package schema_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/schema"
	"github.com/mcpgen/mcpgen/schema/ts"
)

// Every exported schema.ts declaration is in the model or in the exclusion
// table; the counts are pinned so a new revision's additions are noticed.
func TestEveryTSDeclarationIsAccountedFor(t *testing.T) {
	tests := []struct {
		rev                     string
		types, consts, excluded int
		deprecated, depMembers  int
		internal                int
		errorCodes              int
		latest                  string
	}{
		{"2024-11-05", 79, 7, 0, 0, 0, 0, 5, "2024-11-05"},
		{"2025-03-26", 83, 7, 0, 0, 0, 0, 5, "2025-03-26"},
		{"2025-06-18", 91, 7, 0, 0, 0, 12, 5, "2025-06-18"},
		{"2025-11-25", 145, 8, 0, 0, 0, 19, 6, "2025-11-25"},
		{"2026-07-28", 155, 10, 0, 16, 5, 16, 8, "2026-07-28"},
		// draft declares the 2026-07-28 revision; the directory name is
		// not the revision.
		{"draft", 155, 10, 0, 16, 5, 16, 8, "2026-07-28"},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			s := specdir.Load(t, tt.rev)
			f, err := ts.ParseFile(filepath.Join(specdir.Dir(t, tt.rev), "schema.ts"))
			if err != nil {
				t.Fatal(err)
			}
			var types, consts, inModel int
			for _, d := range f.Decls {
				if !d.Exported {
					continue
				}
				if d.Kind == ts.Const {
					consts++
					continue
				}
				types++
				if s.Def(d.Name) != nil {
					inModel++
				}
			}
			if types != tt.types || consts != tt.consts {
				t.Errorf("schema.ts exports %d types and %d constants, want %d and %d", types, consts, tt.types, tt.consts)
			}
			if inModel+len(s.Excluded) != types {
				t.Errorf("%d types in the model + %d excluded != %d exported", inModel, len(s.Excluded), types)
			}
			if len(s.Excluded) != tt.excluded {
				t.Errorf("excluded = %v, want %d", s.Excluded, tt.excluded)
			}
			if len(s.Constants) != tt.consts {
				t.Errorf("model constants = %d, want %d", len(s.Constants), tt.consts)
			}
			var dep, depMembers, internal, codes int
			for _, d := range s.Defs {
				if d.Doc.Deprecated != nil {
					dep++
				}
				if d.Doc.Internal {
					internal++
				}
				if d.Type.Kind == schema.Object {
					for _, p := range d.Type.Props {
						if p.Doc.Deprecated != nil && !inheritedDeprecation(s, d, p.Name) {
							depMembers++
						}
					}
				}
			}
			for _, c := range s.Constants {
				if c.ErrorCode {
					codes++
				}
				if c.Name == "LATEST_PROTOCOL_VERSION" && c.Value.Str != tt.latest {
					t.Errorf("LATEST_PROTOCOL_VERSION = %s, want %s", c.Value.Str, tt.latest)
				}
			}
			if s.Revision != tt.latest {
				t.Errorf("Revision = %s, want %s", s.Revision, tt.latest)
			}
			if dep != tt.deprecated || depMembers != tt.depMembers {
				t.Errorf("deprecated: %d declarations and %d members, want %d and %d", dep, depMembers, tt.deprecated, tt.depMembers)
			}
			if internal != tt.internal {
				t.Errorf("internal declarations = %d, want %d", internal, tt.internal)
			}
			if codes != tt.errorCodes {
				t.Errorf("error code constants = %d, want %d", codes, tt.errorCodes)
			}
		})
	}
}

// inheritedDeprecation reports a member whose deprecation is declared on a
// base (counted there, not again on every extension).
func inheritedDeprecation(s *schema.Spec, d *schema.Def, member string) bool {
	for _, b := range d.Extends {
		bd := s.Def(b.Name)
		if bd == nil || bd.Type.Kind != schema.Object {
			continue
		}
		for _, p := range bd.Type.Props {
			if p.Name == member && p.Doc.Deprecated != nil {
				return true
			}
		}
		if inheritedDeprecation(s, bd, member) {
			return true
		}
	}
	return false
}

func TestWhatOnlySchemaTSKnows(t *testing.T) {
	s := specdir.Load(t, "2026-07-28")
	if want := []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}; !slices.Equal(s.LoggingLevels, want) {
		t.Errorf("LoggingLevels = %v, want %v", s.LoggingLevels, want)
	}
	rt := s.Def("ResultType").Type
	if rt.Kind != schema.String || !rt.EnumOpen || !slices.Equal(rt.Enum, []string{"complete", "input_required"}) {
		t.Errorf("ResultType = %+v, want open string enum complete|input_required", rt)
	}
	stop := prop(t, s, "CreateMessageResult", "stopReason").Type
	if !stop.EnumOpen || !slices.Contains(stop.Enum, "endTurn") {
		t.Errorf("stopReason = %+v, want an open enum with endTurn", stop)
	}
	if k := prop(t, s, "ProgressNotificationParams", "progress").Type.Kind; k != schema.Number {
		t.Errorf("progress is %s, want number", k)
	}
	if k := prop(t, s, "ListToolsResult", "ttlMs").Type.Kind; k != schema.Integer {
		t.Errorf("ttlMs is %s, want integer", k)
	}
	// JSON values: TS number (a float) where schema.json says integer.
	jv := s.Def("JSONValue").Type.Union
	var kinds []schema.Kind
	for _, m := range jv.Members {
		kinds = append(kinds, m.Kind)
	}
	if !slices.Contains(kinds, schema.Number) || slices.Contains(kinds, schema.Integer) || !slices.Contains(kinds, schema.Null) {
		t.Errorf("JSONValue member kinds = %v, want number and null, no integer", kinds)
	}
	if d := s.Def("CallToolResult"); len(d.Extends) == 0 || d.Extends[0].Name != "Result" {
		t.Errorf("CallToolResult extends %v, want Result", d.Extends)
	}
	if d := s.Def("HeaderMismatchError"); len(d.Extends) != 1 || d.Extends[0].Name != "JSONRPCErrorResponse" || !slices.Equal(d.Extends[0].Omitted, []string{"error"}) {
		t.Errorf("HeaderMismatchError extends %+v, want Omit<JSONRPCErrorResponse, error>", d.Extends)
	}
	if p := prop(t, s, "RequestMetaObject", "io.modelcontextprotocol/logLevel"); p.Doc.Deprecated == nil || p.GoName != "LogLevel" {
		t.Errorf("logLevel: deprecated=%v GoName=%s", p.Doc.Deprecated != nil, p.GoName)
	}
	for _, c := range []struct {
		name string
		code int64
	}{{"HEADER_MISMATCH", -32020}, {"MISSING_REQUIRED_CLIENT_CAPABILITY", -32021}, {"UNSUPPORTED_PROTOCOL_VERSION", -32022}, {"PARSE_ERROR", -32700}} {
		if !hasConst(s, c.name, c.code) {
			t.Errorf("constant %s = %d missing", c.name, c.code)
		}
	}
	if m := s.Method("tools/call"); m.NameParam != "name" || !slices.Equal(m.Alternatives, []string{"InputRequiredResult"}) {
		t.Errorf("tools/call: NameParam %q, alternatives %v", m.NameParam, m.Alternatives)
	}
	if m := s.Method("resources/read"); m.NameParam != "uri" {
		t.Errorf("resources/read: NameParam %q", m.NameParam)
	}
	old := specdir.Load(t, "2025-11-25")
	if !hasConst(old, "URL_ELICITATION_REQUIRED", -32042) {
		t.Error("2025-11-25 lacks URL_ELICITATION_REQUIRED")
	}
	if m := old.Method("ping"); m.Result != "EmptyResult" || !slices.Equal(m.Senders, []schema.Side{schema.Client, schema.Server}) {
		t.Errorf("ping: %s from %v", m.Result, m.Senders)
	}
	if old.Era() != schema.Stateful || s.Era() != schema.Stateless {
		t.Error("eras wrong")
	}
}

func prop(t *testing.T, s *schema.Spec, def, name string) *schema.Prop {
	t.Helper()
	d := s.Def(def)
	if d == nil {
		t.Fatalf("no definition %s", def)
	}
	for _, p := range d.Type.Props {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("%s has no member %s", def, name)
	return nil
}

func hasConst(s *schema.Spec, name string, v int64) bool {
	for _, c := range s.Constants {
		if c.Name == name && c.Value.IsInt && c.Value.Int == v && c.ErrorCode {
			return true
		}
	}
	return false
}

func TestGoNames(t *testing.T) {
	tests := map[string]string{
		"_meta": "Meta", "$schema": "Schema", "mimeType": "MIMEType", "uri": "URI", "uriTemplate": "URITemplate",
		"io.modelcontextprotocol/protocolVersion": "ProtocolVersion", "jsonrpc": "JSONRPC", "id": "ID",
		"requestId": "RequestID", "websiteUrl": "WebsiteURL", "ttlMs": "TTLMs", "listChanged": "ListChanged",
		"structuredContent": "StructuredContent", "enumNames": "EnumNames", "tool_use": "ToolUse", "1x": "X1x",
	}
	for in, want := range tests {
		if got := schema.GoName(in); got != want {
			t.Errorf("GoName(%q) = %q, want %q", in, got, want)
		}
	}
}
