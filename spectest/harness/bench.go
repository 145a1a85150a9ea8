package harness

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/specdir"
	"github.com/mcpgen/mcpgen/runtime/wire"
	"github.com/mcpgen/mcpgen/schema"
)

// BenchTypes are the definitions the validation benchmarks measure.
var BenchTypes = []string{"CallToolRequest", "ListToolsResult", "InitializeRequest", "DiscoverRequest"}

// BenchMessages are the messages the validation benchmarks decode and
// validate, for the revision's era.
func BenchMessages(rev string, stateless bool) map[string][]byte {
	meta := `"_meta":{"progressToken":1}`
	resultExtra := ``
	if stateless {
		meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0"}}`
		resultExtra = `"resultType":"complete","ttlMs":60000,"cacheScope":"public",`
	}
	call := `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{` + meta + `,"name":"echo","arguments":{"text":"hello, world","count":3}}}`
	var tools []string
	for i := 0; i < 100; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%d","title":"Tool %d","description":"Does thing number %d, carefully.",`+
			`"inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"A path"},"depth":{"type":"integer"}},"required":["path"]},`+
			`"annotations":{"readOnlyHint":true,"openWorldHint":false}}`, i, i, i))
	}
	list := `{` + resultExtra + `"tools":[` + strings.Join(tools, ",") + `]}`
	out := map[string][]byte{"CallToolRequest": []byte(call), "ListToolsResult": []byte(list)}
	if stateless {
		out["DiscoverRequest"] = []byte(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	} else {
		out["InitializeRequest"] = []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev + `",` +
			`"capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"bench","version":"1.0.0"}}}`)
	}
	return out
}

// BenchValidate compares decoding and validating with the generated code
// against decoding (encoding/json) and validating with jsonschema.
//
// Each side is measured with only what it needs alive: the generated
// sub-benchmarks run first, before the spec's model and jsonschema's
// compiled schema exist, which the garbage collector would otherwise mark
// on every cycle of the generated code's run too (20 % of its time for the
// 100-tool list). The jsonschema sub-benchmarks run with their compiled
// schema, as a program using jsonschema has it.
func BenchValidate(b *testing.B, reg Registry) {
	rev, stateless := benchEra(b, reg)
	msgs := BenchMessages(rev, stateless)
	var types []string
	for _, typ := range BenchTypes {
		if _, ok := msgs[typ]; ok {
			types = append(types, typ)
		}
	}
	for _, typ := range types {
		data, dec := msgs[typ], reg.Types[typ]
		if ok, err := generatedValid(dec, data); !ok {
			b.Fatalf("%s: generated verdict invalid: %v", typ, err)
		}
		b.Run(typ+"/generated", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				v, err := dec(data)
				if err != nil {
					b.Fatal(err)
				}
				if err := v.Validate(); err != nil {
					b.Fatal(err)
				}
			}
		})
		if shared := reg.Shared[typ]; shared != nil {
			// Strings and raw values as views of the input, the way the
			// runtime decodes request params and results.
			b.Run(typ+"/generated-shared", func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					v, err := shared(data)
					if err != nil {
						b.Fatal(err)
					}
					if err := v.Validate(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	spec := specdir.Load(b, reg.Revision)
	ref, err := newReference(spec, mustRead(b, spec.JSONPath))
	if err != nil {
		b.Fatal(err)
	}
	for _, typ := range types {
		data := msgs[typ]
		if ok, err := ref.valid(typ, data); !ok || err != nil {
			b.Fatalf("%s: reference verdict invalid: %v", typ, err)
		}
		b.Run(typ+"/jsonschema", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := ref.valid(typ, data); !ok || err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchEra is the revision of reg and whether it is stateless, read from
// a model of the spec of its own (specdir.Load keeps its models), which is
// then let go.
func benchEra(b *testing.B, reg Registry) (string, bool) {
	spec, err := schema.Load(specdir.Dir(b, reg.Revision))
	if err != nil {
		b.Fatal(err)
	}
	rev, stateless := spec.Revision, spec.Era().String() == "stateless"
	runtime.GC()
	return rev, stateless
}

// BenchEncode measures encoding the benchmark messages with the generated
// code.
func BenchEncode(b *testing.B, reg Registry) {
	spec := specdir.Load(b, reg.Revision)
	msgs := BenchMessages(spec.Revision, spec.Era().String() == "stateless")
	for _, typ := range []string{"CallToolRequest", "ListToolsResult"} {
		v, err := reg.Types[typ](msgs[typ])
		if err != nil {
			b.Fatal(err)
		}
		b.Run(typ, func(b *testing.B) {
			b.ReportAllocs()
			var e wire.Encoder
			for b.Loop() {
				e.Reset()
				v.EncodeJSON(&e)
			}
			b.SetBytes(int64(e.Len()))
		})
	}
}

// Fuzz decodes arbitrary input as typ: never a panic or a hang; whatever
// decodes also validates without panicking, and re-encodes to JSON that
// decodes to the same encoding.
func Fuzz(f *testing.F, reg Registry, typ string) {
	dec := reg.Types[typ]
	if dec == nil {
		f.Skipf("no %s in this revision", typ)
	}
	for _, c := range Examples(f, ExampleRevision) {
		f.Add(c.Data)
	}
	for _, c := range Vectors(f, reg) {
		f.Add(c.Data)
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := dec(data)
		if err != nil {
			return
		}
		_ = v.Validate()
		first, err := wire.Marshal(v)
		if err != nil {
			return // e.g. a NaN cannot be encoded; reported, not written
		}
		v2, err := dec(first)
		if err != nil {
			t.Fatalf("re-decoding our own output failed: %v\n in: %q\nout: %s", err, data, first)
		}
		second, err := wire.Marshal(v2)
		if err != nil || string(first) != string(second) {
			t.Fatalf("encoding is not stable:\n%s\n%s", first, second)
		}
	})
}

func mustRead(b testing.TB, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}
