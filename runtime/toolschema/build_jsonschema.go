//go:build !mcpgen_nojsonschema

package toolschema

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compileSchema compiles raw, known by url, with jsonschema.
func compileSchema(url string, raw []byte) (schemaValidator, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema references are not fetched (%s)", s)
	}
	if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("does not parse: %w", err)
	}
	return c.Compile(url)
}

// describeViolation turns a jsonschema error into one line: the deepest
// cause, with its instance location.
func describeViolation(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := ve.InstanceLocation
	if loc == "" {
		loc = "/"
	}
	return loc + ": " + strings.TrimSpace(ve.Message)
}
