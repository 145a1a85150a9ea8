package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// constants emits the revision, the constants schema.ts exports and one
// constant per method name.
func (g *generator) constants(f *jen.File) error {
	if v := g.opts.ProtocolVersion; v != "" && v != g.spec.Revision {
		f.Comment("Revision is the protocol version this package negotiates, set with mcpgen")
		f.Commentf("--protocol-version; its schema declares LATEST_PROTOCOL_VERSION %s.", g.spec.Revision)
		f.Const().Id("Revision").Op("=").Lit(v)
	} else {
		f.Comment("Revision is the protocol revision this package implements.")
		f.Const().Id("Revision").Op("=").Lit(g.spec.Revision)
	}
	f.Comment("SchemaSHA256 is the SHA-256 of the schema.json this package was generated from.")
	f.Const().Id("SchemaSHA256").Op("=").Lit(g.spec.SchemaSHA256)

	var codes, others []jen.Code
	for _, c := range g.spec.Constants {
		name := constName(c)
		lines := docLines(name, c.Doc.Text, c.Doc.Deprecated)
		if strings.TrimSpace(c.Doc.Text) == "" {
			lines = []string{fmt.Sprintf("%s is %s in schema.ts.", name, c.Name)}
		}
		def := append(commentCode(lines), jen.Id(name).Op("=").Add(constValue(&c.Value)))
		if c.ErrorCode {
			codes = append(codes, def...)
		} else {
			others = append(others, def...)
		}
	}
	if len(others) > 0 {
		f.Const().Defs(others...)
	}
	if len(codes) > 0 {
		f.Comment("JSON-RPC error codes the schema defines.")
		f.Const().Defs(codes...)
	}

	var methods []jen.Code
	for _, m := range g.spec.Methods {
		methods = append(methods, jen.Commentf("%s is the method of %s (%s).", methodConst(m), m.Type, m.Kind))
		methods = append(methods, jen.Id(methodConst(m)).Op("=").Lit(m.Name))
	}
	if len(methods) > 0 {
		f.Comment("Method names.")
		f.Const().Defs(methods...)
	}
	return nil
}

// constName is the Go name of a schema.ts constant: PARSE_ERROR is
// CodeParseError, LATEST_PROTOCOL_VERSION is LatestProtocolVersion.
func constName(c *schema.Constant) string {
	n := schema.GoName(strings.ToLower(c.Name))
	if c.ErrorCode {
		return "Code" + n
	}
	return n
}

// methodConst is the Go name of a method's constant: MethodToolsCall.
func methodConst(m *schema.Method) string {
	return "Method" + GoValueName(m.Name)
}
