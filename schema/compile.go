package schema

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// NewReferenceCompiler returns a jsonschema compiler holding schema.json's
// source under the returned URL, asserting formats the way the MCP schema
// uses them. Tests use it as the reference validator; Load uses it to reject
// schemas that do not compile.
func NewReferenceCompiler(jsonPath string, src []byte) (*jsonschema.Compiler, string, error) {
	abs, err := filepath.Abs(jsonPath)
	if err != nil {
		abs = jsonPath
	}
	url := "file://" + filepath.ToSlash(abs)
	c := jsonschema.NewCompiler()
	c.AssertFormat = true
	c.Formats = map[string]func(any) bool{"byte": isBase64}
	c.LoadURL = func(s string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("loading %s: only the schema document itself may be referenced", s)
	}
	if err := c.AddResource(url, bytes.NewReader(src)); err != nil {
		return nil, "", fmt.Errorf("%s: %v", jsonPath, err)
	}
	return c, url, nil
}

// compile meta-validates schema.json (src, with references resolved) and
// compiles every definition, so a broken schema is rejected with the
// position and JSON pointer of the fault.
func compile(spec *Spec, src []byte, defsKey string, defs map[string]any) error {
	c, url, err := NewReferenceCompiler(spec.JSONPath, src)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ptr := "/" + defsKey + "/" + escapePtr(n)
		if _, err := c.Compile(url + "#" + ptr); err != nil {
			return spec.invalid(faultPointer(err, ptr), "schema does not compile: %s", faultMessage(err))
		}
	}
	return nil
}

// faultPointer digs the JSON pointer of the innermost meta-validation
// failure out of a compile error.
func faultPointer(err error, fallback string) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fallback
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	if ve.InstanceLocation == "" {
		return fallback
	}
	return ve.InstanceLocation
}

func faultMessage(err error) string {
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		for len(ve.Causes) > 0 {
			ve = ve.Causes[0]
		}
		return ve.Message
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, "compilation failed: "); i >= 0 {
		msg = msg[i+len("compilation failed: "):]
	}
	return msg
}

// isBase64 is the reference check of the "byte" format (RFC 4648 base64
// with padding), which jsonschema does not know.
func isBase64(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}
