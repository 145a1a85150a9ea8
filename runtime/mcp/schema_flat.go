//go:build mcpgen_nojsonschema

package mcp

// fullSchemas reports that only flat input schemas are checked: the
// program is built with -tags mcpgen_nojsonschema (see schema_full.go).
const fullSchemas = false

// compileSchema compiles nothing in this build.
func compileSchema(string, []byte) (schemaValidator, error) { return nil, errNoJSONSchema }

// describeViolation is err's text in this build.
func describeViolation(err error) string { return err.Error() }
