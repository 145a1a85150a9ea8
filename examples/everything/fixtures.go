package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/features"
	rt "github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/resume"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The fixtures are declared in declared.go and served from the generated
// set (features.gen.go); the handlers (handlers.go, written for
// 2026-07-28 and bridged to the older revisions) answer what a Go type
// cannot declare. This file holds what they share.

// A 1x1 PNG and a tiny WAV, base64.
const (
	pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	wavData = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA="
)

// fixtures holds the server's state: the declared set (the trigger tools
// add and remove items in it) and count_to's resume tokens.
type fixtures struct {
	set *features.Set
	// resume seals and opens count_to's resume tokens.
	resume *resume.Tokens

	mu          sync.Mutex
	extraTool   bool
	extraPrompt bool
}

// newFixtures returns the fixtures with the declared set; tokens may be
// nil (a random key of this process).
func newFixtures(tokens *resume.Tokens) *fixtures {
	if tokens == nil {
		tokens = resume.NewTokens(nil)
	}
	return &fixtures{set: Features(), resume: tokens}
}

// toggle adds the dynamic tool or prompt when it is absent and removes it
// when present; the set announces the change to the clients.
func (f *fixtures) toggle(list rt.ListKind) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch list {
	case rt.ToolsList:
		if f.extraTool = !f.extraTool; f.extraTool {
			f.set.AddTools(dynamicTool())
		} else {
			f.set.RemoveTools("dynamic_tool")
		}
	case rt.PromptsList:
		if f.extraPrompt = !f.extraPrompt; f.extraPrompt {
			f.set.AddPrompts(dynamicPrompt())
		} else {
			f.set.RemovePrompts("dynamic_prompt")
		}
	}
}

// The tools the era handlers serve: their JSON Schemas say what Go types
// cannot (a 2020-12 schema with $defs and if/then; an x-mcp-header
// annotation), or they need the revision's own request (count_to's
// resumeToken).

const jsonSchemaToolDef = `{"name":"json_schema_2020_12_tool","description":"Tool with JSON Schema 2020-12 features","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}}`

const regionalLookupDef = `{"name":"regional_lookup","description":"Looks a query up in a region; the region also travels in the Mcp-Param-Region header, for routing.","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"query":{"type":"string"}},"required":["region"]}}`

// toolList is a tools/list result of tool definitions.
func toolList(defs ...string) string { return `{"tools":[` + strings.Join(defs, ",") + `]}` }

// handlerTool answers the tools both era handlers serve; ok is false for
// the others.
func handlerTool(name string, args wire.Raw) (string, bool, error) {
	switch name {
	case "json_schema_2020_12_tool":
		var a struct{ Name string }
		_ = json.Unmarshal(args, &a)
		return content(text("accepted " + a.Name)), true, nil
	case "regional_lookup":
		var a struct{ Region, Query string }
		_ = json.Unmarshal(args, &a)
		return content(text(fmt.Sprintf("Looked up %q in %s.", a.Query, a.Region))), true, nil
	}
	return "", false, nil
}

func text(s string) string {
	b, _ := json.Marshal(s)
	return `{"type":"text","text":` + string(b) + `}`
}

func content(blocks ...string) string {
	return `{"content":[` + strings.Join(blocks, ",") + `]}`
}

func noArgsSchema() string { return `{"type":"object","properties":{}}` }

// completion returns the CompleteResult JSON for an argument.
func completion(argName, value string) string {
	var values []string
	for _, v := range []string{"test", "testing", "tested", value + "-suggestion"} {
		if strings.HasPrefix(v, value) {
			values = append(values, v)
		}
	}
	b, _ := json.Marshal(values)
	if values == nil {
		b = []byte("[]")
	}
	return `{"completion":{"values":` + string(b) + `,"total":` + fmt.Sprint(len(values)) + `,"hasMore":false}}`
}

func jsonString(s string) wire.Raw {
	b, _ := json.Marshal(s)
	return b
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// decode decodes fixture JSON into a generated type; fixtures are ours, so
// failing is a bug.
func decode[T any, P interface {
	*T
	wire.Unmarshaler
}](data string) (P, error) {
	v := P(new(T))
	if err := wire.Unmarshal([]byte(data), v); err != nil {
		return nil, fmt.Errorf("everything: fixture does not decode: %w", err)
	}
	return v, nil
}
