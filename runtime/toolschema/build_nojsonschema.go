//go:build mcpgen_nojsonschema

package toolschema

// compileSchema compiles nothing in this build.
func compileSchema(string, []byte) (schemaValidator, error) { return nil, errNoJSONSchema }

// describeViolation is err's text in this build.
func describeViolation(err error) string { return err.Error() }
