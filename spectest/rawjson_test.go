package spectest_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20241105"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20251125"
	"github.com/mcpgen/mcpgen/spectest/mcp/mcp20260728"
)

// TestInvalidRawJSON: a raw member a program set to invalid JSON fails to
// encode, naming the member, in every generated form a raw value takes: a
// named object type (arguments), a member of any JSON (a tool's
// structuredContent, a request's _meta), an extra member, and an Unknown
// union member. Validate checks what the schema says, the kind of value
// (arguments that are not an object, an Unknown union member); since
// generated-code version 12 it leaves the syntax to the encoder, the one
// place every value a program sets goes through, rather than scan each
// raw value twice. Valid raw JSON still encodes as written.
func TestInvalidRawJSON(t *testing.T) {
	for _, tc := range []struct {
		name    string
		v       wire.Marshaler
		pointer string
		invalid bool // Validate must fail too: the kind is wrong
	}{
		{"2025-11-25 arguments", &mcp20251125.CallToolRequestParams{Name: "t", Arguments: mcp20251125.CallToolRequestParamsArguments(`{bad`)}, "/arguments", false},
		{"2025-11-25 arguments not an object", &mcp20251125.CallToolRequestParams{Name: "t", Arguments: mcp20251125.CallToolRequestParamsArguments(`[1,2`)}, "/arguments", true},
		{"2024-11-05 arguments", &mcp20241105.CallToolRequestParams{Name: "t", Arguments: mcp20241105.CallToolRequestParamsArguments(`{"a":}`)}, "/arguments", false},
		{"2026-07-28 structuredContent", &mcp20260728.CallToolResult{Content: []mcp20260728.ContentBlock{&mcp20260728.TextContent{Text: "x"}}, StructuredContent: wire.Raw(`{"n":1`)}, "/structuredContent", false},
		{"extra member", &mcp20251125.Implementation{Name: "n", Version: "1", Extra: wire.Members{{Name: "x/y", Value: wire.Raw(`nul`)}}}, "/x~1y", false},
		{"unknown content block", &mcp20251125.CallToolResult{Content: []mcp20251125.ContentBlock{&mcp20251125.TextContent{Text: "ok"}, &mcp20251125.UnknownContentBlock{Raw: wire.Raw(`{"type":"x",}`)}}}, "/content/1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := wire.Marshal(tc.v)
			if err == nil {
				t.Fatalf("Marshal gave %s and no error", b)
			}
			var pe *wire.PathError
			if !errors.As(err, &pe) || pe.Pointer != tc.pointer || !strings.Contains(err.Error(), "invalid JSON") {
				t.Errorf("Marshal error = %v; want a *wire.PathError at %s saying invalid JSON", err, tc.pointer)
			}
			if _, err := json.Marshal(tc.v); err == nil {
				t.Error("json.Marshal: no error")
			}
			if v, ok := tc.v.(interface{ Validate() error }); ok && tc.invalid {
				if err := v.Validate(); err == nil || !strings.Contains(err.Error(), tc.pointer) {
					t.Errorf("Validate() = %v; want an error at %s", err, tc.pointer)
				}
			}
		})
	}
	ok := &mcp20251125.CallToolRequestParams{Name: "t", Arguments: mcp20251125.CallToolRequestParamsArguments(` {"a": [1, "b"]} `)}
	b, err := wire.Marshal(ok)
	if err != nil || string(b) != `{"name":"t","arguments": {"a": [1, "b"]} }` {
		t.Errorf("valid arguments: %s, %v", b, err)
	}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid arguments: Validate() = %v", err)
	}
}
