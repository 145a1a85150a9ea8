// Package templates holds the fixed text mcpgen emits, as text/template
// files embedded in the binary.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

// Parse parses the named template file.
func Parse(name string) (*template.Template, error) {
	return template.New(name).ParseFS(files, name)
}
