package gen

import (
	"bytes"
	"fmt"
	"go/format"

	"github.com/mcpgen/mcpgen/schema"
	"github.com/mcpgen/mcpgen/templates"
)

// doc renders doc.gen.go, the package documentation, from its template.
func (g *generator) doc() (File, error) {
	t, err := templates.Parse("doc.go.tmpl")
	if err != nil {
		return File{}, fmt.Errorf("gen: %w", err)
	}
	var overrides []string
	for _, o := range g.spec.Overrides {
		overrides = append(overrides, fmt.Sprintf("%s: %s in schema.json, %s here (%s).", where(o.Path), o.JSON, o.Model, o.Why))
	}
	// Warnings name the files they come from; the package names them
	// relative to the spec directory, so its bytes do not depend on where
	// the spec was read from.
	var fallbacks []string
	for _, w := range g.spec.Warnings {
		fallbacks = append(fallbacks, g.spec.Relative(w.String()))
	}
	var buf bytes.Buffer
	err = t.Execute(&buf, map[string]any{
		"Header":    g.header(),
		"Package":   g.opts.Package,
		"Revision":  g.spec.Revision,
		"Protocol":  g.opts.ProtocolVersion,
		"Stateless": g.spec.Era() == schema.Stateless,
		"Overrides": overrides,
		"Fallbacks": fallbacks,
	})
	if err != nil {
		return File{}, fmt.Errorf("gen: doc template: %w", err)
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return File{}, fmt.Errorf("gen: doc.gen.go: %w", err)
	}
	return File{Name: "doc.gen.go", Content: src}, nil
}
