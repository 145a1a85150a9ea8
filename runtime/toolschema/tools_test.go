package toolschema

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadPage: learn reads a tool's name and schemas and the next cursor
// of a ListToolsResult, and nothing else.
func TestReadPage(t *testing.T) {
	for _, tc := range []struct {
		page, want string
	}{
		{`{"tools":[{"name":"a","description":"d","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{}},"annotations":{"readOnlyHint":true}},{"inputSchema":{},"name":"b\u00e9"}],"nextCursor":"c2","_meta":{"x":[1]}}`,
			`[{a {"type":"object"} {"type":"object","properties":{}}} {bé {} }] "c2"`},
		{`{"tools":[]}`, `[] ""`},
		{`{"tools":null,"nextCursor":null}`, `[] ""`},
		{` {"nextCursor":"x"} `, `[] "x"`},
	} {
		p, err := readPage([]byte(tc.page))
		if err != nil {
			t.Errorf("%s: %v", tc.page, err)
			continue
		}
		var tools []string
		for _, tool := range p.tools {
			tools = append(tools, fmt.Sprintf("{%s %s %s}", tool.name, tool.in, tool.out))
		}
		if got := fmt.Sprintf("[%s] %q", strings.Join(tools, " "), p.next); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.page, got, tc.want)
		}
	}
	for _, page := range []string{`{"tools":{}}`, `{"tools":[{"name":1}]}`, `{"nextCursor":2}`, `[]`, `{"tools":[]} x`, `{"tools":[{"name":"a"}]`} {
		if _, err := readPage([]byte(page)); err == nil {
			t.Errorf("%s: read", page)
		}
	}
}

// BenchmarkCompileFlat compiles a flat input schema as a server does once
// per tool when it learns its tools.
func BenchmarkCompileFlat(b *testing.B) {
	schema := []byte(`{"type":"object","properties":{"city":{"type":"string","description":"The city","minLength":1},"units":{"type":"string","enum":["metric","imperial"],"default":"metric"},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["city"],"additionalProperties":false}`)
	b.ReportAllocs()
	for b.Loop() {
		if s, err := Compile(schema, true); err != nil || s == nil || s.flat == nil {
			b.Fatal("not flat", err)
		}
	}
}
