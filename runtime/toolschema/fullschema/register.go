//go:build !mcpgen_nojsonschema

package fullschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/runtime/toolschema"
)

func init() { toolschema.Register(validator{}) }

// validator is jsonschema as a toolschema.Full.
type validator struct{}

// Compile implements toolschema.Full.
func (validator) Compile(url string, raw []byte) (toolschema.FullSchema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("schema references are not fetched (%s)", s)
	}
	if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("does not parse: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return schema{s}, nil
}

// schema is a compiled jsonschema schema as a toolschema.FullSchema.
type schema struct{ s *jsonschema.Schema }

// Check implements toolschema.FullSchema: every leaf of jsonschema's tree
// of causes is a violation, listed with its instance location.
func (s schema) Check(value []byte) (violations string) {
	v, err := decodeAny(value)
	if err != nil {
		return "" // not JSON: the decoder of what it is says so
	}
	// jsonschema panics on a number whose exponent is beyond ±1e6 (its
	// big.Rat is nil): a peer's value, so a violation, not a crash.
	defer func() {
		if recover() != nil {
			violations = "/: a number is too large to check (exponent beyond ±1e6)"
		}
	}()
	err = s.s.Validate(v)
	if err == nil {
		return ""
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
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
	return toolschema.ListViolations(problems)
}

// decodeAny decodes JSON the way jsonschema wants it: numbers as
// json.Number.
func decodeAny(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
