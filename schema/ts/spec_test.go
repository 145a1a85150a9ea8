package ts

import (
	"os"
	"path/filepath"
	"testing"
)

// specRoot returns the directory holding <rev>/schema.ts, skipping the test
// if it is absent. MCPGEN_SPEC_ROOT overrides the default.
func specRoot(tb testing.TB) string {
	tb.Helper()
	root := os.Getenv("MCPGEN_SPEC_ROOT")
	if root == "" {
		root = filepath.Join("..", "..", "..", "shared", "mcp-schema")
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		tb.Skipf("spec directory %s not available", root)
	}
	return root
}

func parseSpec(t *testing.T, rev string) *File {
	t.Helper()
	path := filepath.Join(specRoot(t), rev, "schema.ts")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not available", path)
	}
	f, err := ParseFile(path)
	if err != nil {
		t.Fatalf("ParseFile: %v", err)
	}
	return f
}

// walkMembers calls fn for every member of d, including members of nested
// object literal types, with a dotted path.
func walkMembers(d *Decl, fn func(path string, m *Member)) {
	var walkType func(prefix string, t *Type)
	walkMembersOf := func(prefix string, ms []*Member) {
		for _, m := range ms {
			p := prefix + "." + m.Name
			fn(p, m)
			walkType(p, m.Type)
		}
	}
	walkType = func(prefix string, t *Type) {
		if t == nil {
			return
		}
		switch t.Kind {
		case Object:
			walkMembersOf(prefix, t.Members)
		case Array:
			walkType(prefix, t.Elem)
		case Union, Intersection:
			for _, u := range t.Types {
				walkType(prefix, u)
			}
		case Ref:
			for _, a := range t.Args {
				walkType(prefix, a)
			}
		}
	}
	walkMembersOf(d.Name, d.Members)
	walkType(d.Name, d.Type)
}

func TestSpecRevisions(t *testing.T) {
	tests := []struct {
		rev                          string
		exported, consts             int
		deprecatedDecls, depMembers  int
		internalDecls, internalConst int
		categorized                  int
	}{
		{"2024-11-05", 86, 7, 0, 0, 0, 0, 0},
		{"2025-03-26", 90, 7, 0, 0, 0, 0, 0},
		{"2025-06-18", 98, 7, 0, 0, 12, 2, 79},
		{"2025-11-25", 153, 8, 0, 0, 19, 3, 126},
		{"2026-07-28", 165, 10, 16, 5, 16, 2, 141},
		{"draft", 165, 10, 16, 5, 16, 2, 141},
	}
	for _, tt := range tests {
		t.Run(tt.rev, func(t *testing.T) {
			t.Parallel()
			f := parseSpec(t, tt.rev)
			var exported, consts, dep, depMembers, internal, internalConst, categorized int
			for _, d := range f.Decls {
				if d.Exported {
					exported++
				}
				if d.Kind == Const {
					consts++
				}
				if d.Doc != nil {
					if d.Doc.Deprecated != nil {
						dep++
					}
					if d.Doc.Internal {
						if d.Kind == Const {
							internalConst++
						} else {
							internal++
						}
					}
					if d.Doc.Category != "" {
						categorized++
					}
				}
				walkMembers(d, func(_ string, m *Member) {
					if m.Doc != nil && m.Doc.Deprecated != nil {
						depMembers++
					}
				})
				// Every type renders and re-parses to the same text.
				for _, ty := range declTypes(d) {
					checkRoundTrip(t, ty)
				}
			}
			if exported != tt.exported || len(f.Decls) != tt.exported {
				t.Errorf("exported declarations = %d (of %d), want %d", exported, len(f.Decls), tt.exported)
			}
			if consts != tt.consts {
				t.Errorf("consts = %d, want %d", consts, tt.consts)
			}
			if dep != tt.deprecatedDecls || depMembers != tt.depMembers {
				t.Errorf("deprecated = %d decls + %d members, want %d + %d", dep, depMembers, tt.deprecatedDecls, tt.depMembers)
			}
			if internal != tt.internalDecls || internalConst != tt.internalConst {
				t.Errorf("internal = %d non-const + %d const, want %d + %d", internal, internalConst, tt.internalDecls, tt.internalConst)
			}
			if categorized != tt.categorized {
				t.Errorf("declarations with @category = %d, want %d", categorized, tt.categorized)
			}
			t.Logf("%s: %d decls, %d consts, deprecated %d decls + %d members, internal %d (+%d consts), %d categorized",
				tt.rev, len(f.Decls), consts, dep, depMembers, internal, internalConst, categorized)
		})
	}
}

// declTypes returns the top-level types of d.
func declTypes(d *Decl) []*Type {
	var ts []*Type
	ts = append(ts, d.Extends...)
	if d.Type != nil {
		ts = append(ts, d.Type)
	}
	for _, m := range d.Members {
		ts = append(ts, m.Type)
	}
	if d.Index != nil {
		ts = append(ts, d.Index.KeyType, d.Index.Value)
	}
	return ts
}

// checkRoundTrip parses the rendering of ty again and compares renderings.
func checkRoundTrip(t *testing.T, ty *Type) {
	t.Helper()
	s := ty.String()
	f, err := ParseBytes("roundtrip.ts", []byte("type X = "+s+";"))
	if err != nil {
		t.Errorf("re-parsing %q: %v", s, err)
		return
	}
	if got := f.Decls[0].Type.String(); got != s {
		t.Errorf("round trip: %q became %q", s, got)
	}
}

func TestSpecSpotChecks(t *testing.T) {
	t.Run("2025-11-25", func(t *testing.T) {
		f := parseSpec(t, "2025-11-25")
		d := f.Lookup("URLElicitationRequiredError")
		if d == nil || d.Kind != Interface {
			t.Fatalf("URLElicitationRequiredError = %+v", d)
		}
		if len(d.Extends) != 1 || d.Extends[0].String() != `Omit<JSONRPCErrorResponse, "error">` {
			t.Errorf("extends = %v", d.Extends)
		}
		if b := d.Extends[0]; b.Kind != Ref || b.Name != "Omit" || len(b.Args) != 2 ||
			b.Args[1].Kind != LiteralType || b.Args[1].Lit.Str != "error" {
			t.Errorf("extends[0] = %#v", b)
		}
		m := d.Member("error")
		if m == nil || m.Optional {
			t.Fatalf("member error = %+v", m)
		}
		ty := m.Type
		if ty.Kind != Intersection || len(ty.Types) != 2 {
			t.Fatalf("error type = %v", ty)
		}
		if ty.Types[0].Kind != Ref || ty.Types[0].Name != "Error" {
			t.Errorf("first = %v", ty.Types[0])
		}
		obj := ty.Types[1]
		code := obj.Member("code")
		if obj.Kind != Object || code == nil || code.Type.Kind != TypeOf || code.Type.Name != "URL_ELICITATION_REQUIRED" {
			t.Errorf("second = %v", obj)
		}
		data := obj.Member("data")
		if data == nil || data.Type.Index == nil || data.Type.Index.Value.String() != "unknown" {
			t.Errorf("data = %v", data)
		}
		if c := f.Lookup("URL_ELICITATION_REQUIRED"); c == nil || c.Kind != Const || c.Value.Kind != NumberLit || c.Value.Num != -32042 || c.Value.Raw != "-32042" {
			t.Errorf("URL_ELICITATION_REQUIRED = %+v", c)
		}
		if d := f.Lookup("GetTaskResult"); d == nil || d.Type.String() != "Result & Task" {
			t.Errorf("GetTaskResult = %v", d)
		}
		if m := f.Lookup("Task").Member("ttl"); !m.Type.IsNullable() {
			t.Errorf("Task.ttl %v not nullable", m.Type)
		}
	})
	t.Run("2025-03-26", func(t *testing.T) {
		f := parseSpec(t, "2025-03-26")
		d := f.Lookup("JSONRPCBatchRequest")
		if d == nil || d.Type.Kind != Array || d.Type.Elem.Kind != Union ||
			d.Type.String() != "(JSONRPCRequest | JSONRPCNotification)[]" {
			t.Errorf("JSONRPCBatchRequest = %v", d)
		}
	})
	t.Run("draft", func(t *testing.T) {
		f := parseSpec(t, "draft")
		d := f.Lookup("LATEST_PROTOCOL_VERSION")
		if d == nil || d.Kind != Const || d.Value.Kind != StringLit || d.Value.Str != "2026-07-28" || !d.Doc.Internal {
			t.Errorf("LATEST_PROTOCOL_VERSION = %+v", d)
		}
	})
	t.Run("2026-07-28", func(t *testing.T) {
		f := parseSpec(t, "2026-07-28")
		if m := f.Lookup("ProgressNotificationParams").Member("progress"); m == nil || m.Doc == nil || m.Doc.TJSType != "number" {
			t.Errorf("ProgressNotificationParams.progress = %+v", m)
		}
		m := f.Lookup("RequestMetaObject").Member("io.modelcontextprotocol/logLevel")
		if m == nil || !m.Quoted || !m.Optional || m.Doc == nil || m.Doc.Deprecated == nil ||
			*m.Doc.Deprecated == "" || m.Type.String() != "LoggingLevel" {
			t.Errorf("RequestMetaObject logLevel = %+v", m)
		}
		// The JSDoc before an eslint line comment still belongs to the member.
		if m := f.Lookup("ClientCapabilities").Member("roots"); m == nil || m.Doc == nil || m.Doc.Deprecated == nil ||
			m.Type.Kind != Object || len(m.Type.Members) != 0 {
			t.Errorf("ClientCapabilities.roots = %+v", m)
		}
		// A plain /* */ comment is not a doc comment.
		if m := f.Lookup("InputRequiredResult").Member("inputRequests"); m == nil || m.Doc != nil {
			t.Errorf("InputRequiredResult.inputRequests = %+v", m)
		}
		rt := f.Lookup("ResultType")
		if rt.Type.Kind != Union || len(rt.Type.Types) != 3 ||
			rt.Type.Types[0].Kind != LiteralType || rt.Type.Types[0].Lit.Str != "complete" ||
			rt.Type.Types[1].Kind != LiteralType || rt.Type.Types[1].Lit.Str != "input_required" ||
			!rt.Type.Types[2].isKeyword("string") {
			t.Errorf("ResultType = %v", rt.Type)
		}
		res := f.Lookup("Result")
		if res.Index == nil || res.Index.KeyName != "key" || !res.Index.KeyType.isKeyword("string") || !res.Index.Value.isKeyword("unknown") {
			t.Errorf("Result index = %+v", res.Index)
		}
		if d := f.Lookup("ParseError"); d.Doc.Category != "Errors" || len(d.Doc.Examples) != 1 ||
			d.Doc.Examples[0] != "./examples/ParseError/invalid-json.json" ||
			len(d.Doc.Links) != 1 || d.Doc.Links[0] != "https://www.jsonrpc.org/specification#error_object" {
			t.Errorf("ParseError doc = %+v", d.Doc)
		}
		if d := f.Lookup("ElicitResult"); d.Doc.Text != "The result returned by the client for an elicitation/create request." {
			t.Errorf("ElicitResult doc text = %q", d.Doc.Text)
		}
		if d := f.Lookup("LoggingLevel"); d.Doc.Deprecated == nil || d.Type.Kind != Union || len(d.Type.Types) != 8 {
			t.Errorf("LoggingLevel = %v", d.Type)
		}
		if d := f.Lookup("TitledSingleSelectEnumSchema"); d.Member("oneOf").Type.String() != "Array<{ const: string; title: string }>" {
			t.Errorf("oneOf = %v", d.Member("oneOf").Type)
		}
		if d := f.Lookup("JSONObject"); d.Type.Kind != Object || d.Type.Index == nil || d.Type.Index.Value.Name != "JSONValue" {
			t.Errorf("JSONObject = %v", d.Type)
		}
		if d := f.Lookup("ListResourceTemplatesResult"); len(d.Extends) != 2 || d.Extends[1].Name != "CacheableResult" {
			t.Errorf("ListResourceTemplatesResult extends %v", d.Extends)
		}
	})
}
