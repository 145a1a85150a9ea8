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

// describeViolation turns a jsonschema error into one line: every leaf
// cause with its instance location, as the flat checker lists them.
func describeViolation(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	// Every leaf of the tree of causes is a violation.
	var problems []string
	var walk func(*jsonschema.ValidationError)
	walk = func(ve *jsonschema.ValidationError) {
		if len(ve.Causes) == 0 {
			loc := ve.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			problems = append(problems, loc+": "+strings.TrimSpace(ve.Message))
			return
		}
		for _, c := range ve.Causes {
			walk(c)
		}
	}
	walk(ve)
	return joinProblems(problems)
}
