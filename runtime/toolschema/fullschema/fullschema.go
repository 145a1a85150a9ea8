// Package fullschema makes package toolschema check every tool schema, not
// only flat ones: imported for its effect,
//
//	import _ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"
//
// it registers github.com/santhosh-tekuri/jsonschema/v5 (JSON Schema
// 2020-12 unless a schema says otherwise; references are never fetched) as
// toolschema's full validator. A server then checks the arguments of tools
// whose schemas nest objects or arrays, combine schemas (anyOf, oneOf, $ref
// …) or constrain strings with patterns or formats, and the
// structuredContent of such tools against their outputSchema.
//
// A program that does not import it leaves jsonschema out, and with it
// about 0.8 MB of code (its regular expressions among it) and the megabyte
// of memory jsonschema takes when it starts. Tools declared with mcpgen's
// typed declarations are checked by their generated decoders whatever the
// program imports, and flat schemas by toolschema itself; of the others, the
// server logs each tool its handler lists (when it learns them), and
// package features refuses to serve a hand-built tool whose arguments it
// could not check, naming this package.
//
// Built with -tags mcpgen_nojsonschema, the package registers nothing even
// when imported.
package fullschema
