// Package gen emits the Go package for one MCP spec revision from its
// model (package schema).
//
// The output is one concern per file:
//
//	doc.gen.go          package documentation: revision, policies, TS overrides
//	constants.gen.go    protocol version, JSON-RPC version, methods, error codes
//	types.gen.go        one Go type per definition and named inline type
//	unions.gen.go       sealed interfaces for unions and their Unknown members
//	json.gen.go         reflection-free EncodeJSON/DecodeJSON
//	validate.gen.go     Validate() for every type
//	methods.gen.go      the revision's descriptor for the runtime (method table,
//	                    what differs between revisions) and Mount
//	side_server.gen.go  the Server interface and the serving of its methods
//	side_client.gen.go  the ClientHandler interface, its serving, typed calls
//	provenance.gen.go   what the package was generated from
//	compat.gen.go       the runtime versions that can build the package
//
// GenerateBridge emits the package between the packages of two revisions
// (mcpgen convert): convert.gen.go, the conversions both ways;
// bridge.gen.go, the adapter that mounts one revision's handlers for the
// other's clients; doc.gen.go, what the conversions cannot carry.
//
// Generation is deterministic: the same model gives the same bytes.
package gen

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/dave/jennifer/jen"
	"golang.org/x/tools/imports"

	"github.com/mcpgen/mcpgen/schema"
)

// Runtime import paths used by generated code.
const (
	wirePkg   = "github.com/mcpgen/mcpgen/runtime/wire"
	validPkg  = "github.com/mcpgen/mcpgen/runtime/valid"
	mcpPkg    = "github.com/mcpgen/mcpgen/runtime/mcp"
	protoPkg  = "github.com/mcpgen/mcpgen/runtime/protocol"
	jsonrpcPk = "github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Options control generation.
type Options struct {
	// Package is the package name of the generated code.
	Package string
	// Version is the mcpgen version named in the file headers.
	Version string
	// SpecCommit is the upstream commit the schema files are from, when
	// known; it is recorded in provenance.gen.go.
	SpecCommit string
	// OverridesSHA256 is the SHA-256 of the overrides file, when there is
	// one; it is recorded in provenance.gen.go.
	OverridesSHA256 string
	// ProtocolVersion is the version the package negotiates (its Revision
	// constant and the runtime's view of it); default the schema's
	// revision (LATEST_PROTOCOL_VERSION). A draft that declares a published
	// revision's version gets its own here, so both can be mounted on one
	// server.
	ProtocolVersion string
	// Side is the end of a connection the package serves: "server",
	// "client", or "" for both. A package for one side describes to the
	// runtime only what that side receives and can be mounted on that
	// side only. A package for both keeps what only one end receives
	// apart (protocol.Protocol.ClientTable, ServerTable), so the linker
	// leaves the end a program does not play out of it either way.
	Side string
}

// File is one generated file.
type File struct {
	Name    string
	Content []byte
}

// Generate emits the package for spec.
func Generate(spec *schema.Spec, opts Options) ([]File, error) {
	if opts.Package == "" {
		return nil, fmt.Errorf("gen: no package name")
	}
	if opts.Version == "" {
		opts.Version = "devel"
	}
	if opts.ProtocolVersion == "" {
		opts.ProtocolVersion = spec.Revision
	}
	switch opts.Side {
	case "", "server", "client":
	case "both":
		opts.Side = ""
	default:
		return nil, fmt.Errorf("gen: side %q: want server, client or both", opts.Side)
	}
	g, err := newGenerator(spec, opts)
	if err != nil {
		return nil, err
	}
	emitters := []struct {
		name string
		emit func(*jen.File) error
	}{
		{"constants.gen.go", g.constants},
		{"types.gen.go", g.types},
		{"unions.gen.go", g.unions},
		{"json.gen.go", g.json},
		{"validate.gen.go", g.validate},
		{"methods.gen.go", g.protocolFile},
		{"side_server.gen.go", g.server},
		{"side_client.gen.go", g.client},
	}
	var files []File
	doc, err := g.doc()
	if err != nil {
		return nil, err
	}
	prov, err := g.provenanceFiles()
	if err != nil {
		return nil, err
	}
	files = append(append(files, doc), prov...)
	// Emitting shares the generator's state and runs in order; rendering
	// and formatting, most of the time, is independent per file.
	rendered := make([]File, len(emitters))
	errs := make([]error, len(emitters))
	var wg sync.WaitGroup
	for i, e := range emitters {
		f := jen.NewFile(opts.Package)
		f.HeaderComment(g.header())
		f.ImportName(wirePkg, "wire")
		f.ImportName(validPkg, "valid")
		f.ImportName(mcpPkg, "mcp")
		f.ImportName(protoPkg, "protocol")
		f.ImportName(jsonrpcPk, "jsonrpc")
		if err := e.emit(f); err != nil {
			return nil, fmt.Errorf("gen: %s: %w", e.name, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			src, err := render(e.name, f)
			rendered[i], errs[i] = File{Name: e.name, Content: src}, err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	files = append(files, rendered...)
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

// header is the first line of every file: the tool, the revision and the
// schema hash, and nothing that changes between runs.
func (g *generator) header() string {
	return fmt.Sprintf("Code generated by mcpgen %s from %s (schema sha256 %s). DO NOT EDIT.", g.opts.Version, g.spec.Revision, g.spec.SchemaSHA256)
}

// render formats a jennifer file and runs goimports over it.
func render(name string, f *jen.File) ([]byte, error) {
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, fmt.Errorf("gen: rendering %s: %w", name, err)
	}
	// jennifer's output is gofmt'ed already; goimports settles the import
	// block the way users' tools would.
	out, err := imports.Process(name, buf.Bytes(), &imports.Options{Comments: true, TabIndent: true, TabWidth: 8, FormatOnly: true})
	if err != nil {
		return nil, fmt.Errorf("gen: formatting %s: %w", name, err)
	}
	return out, nil
}

// TypeInfo describes one generated type, for tools that drive generated
// code by definition name (test harnesses, registries).
type TypeInfo struct {
	// Name is the Go type name; for definitions, the definition's name.
	Name string
	// Def reports a schema definition, not a named inline type.
	Def bool
	// Union reports a sealed interface, decoded with UnmarshalName unless
	// Origin is set.
	Union bool
	// Origin reports a union only the originating request can decode
	// (ServerResult): it has no UnmarshalName.
	Origin bool
	// Methods reports that the type has EncodeJSON, DecodeJSON and
	// Validate; aliases (type Cursor = string) do not.
	Methods bool
	// Pointer reports that the methods have pointer receivers (structs).
	Pointer bool
	// AliasOf names the definition an alias stands for ("" if none).
	AliasOf string
	// Raw reports a type kept as raw JSON text (any JSON value, or an
	// object of any members): nothing inside it is decoded.
	Raw bool
}

// Types lists the types Generate declares for spec, sorted by name.
func Types(spec *schema.Spec) ([]TypeInfo, error) {
	g, err := newGenerator(spec, Options{Package: "x"})
	if err != nil {
		return nil, err
	}
	var out []TypeInfo
	for _, n := range g.order {
		ti := TypeInfo{Name: n.name, Def: n.def != nil, Union: n.shape == shapeUnion, Pointer: n.shape == shapeStruct}
		ti.Origin = ti.Union && n.union.Rule == schema.ByOrigin
		ti.Raw = n.shape == shapeAnyJSON || n.shape == shapeRawObject
		ti.Methods = !g.isAlias(n) && !ti.Union
		if n.shape == shapeAlias && n.alias.named != nil {
			ti.AliasOf = n.alias.named.name
		}
		out = append(out, ti)
	}
	return out, nil
}

// Handler describes the Go method a handler implements to answer one
// method of a generated package, for tools that write handlers for it
// (test drivers, stubs).
type Handler struct {
	// Method is the method string ("tools/list"); Name the Go method
	// (ListTools).
	Method, Name string
	// FromClient reports a method of the Server interface (a client sends
	// it); otherwise it is in ClientHandler.
	FromClient   bool
	Notification bool
	// Params is the Go type of the params argument ("*ListToolsRequestParams"),
	// "" when the method has no params.
	Params string
	// Reply is the Go type of the result ("*ListToolsResult", a union
	// "ListToolsReply"), "" for notifications. A union reply is decoded with
	// the function ReplyDecode names ("" for a pointer: wire.Unmarshal).
	Reply       string
	ReplyDecode string
}

// Handlers lists the methods handlers implement for spec (the runtime
// answers the rest), in method order, one entry per receiving side.
func Handlers(spec *schema.Spec) ([]Handler, error) {
	g, err := newGenerator(spec, Options{Package: "x"})
	if err != nil {
		return nil, err
	}
	render := func(c jen.Code) string { return fmt.Sprintf("%#v", jen.Null().Add(c)) }
	var out []Handler
	for _, m := range spec.Methods {
		if !handled(m) {
			continue
		}
		for _, fromClient := range []bool{true, false} {
			if !m.SentBy(map[bool]schema.Side{true: schema.Client, false: schema.Server}[fromClient]) {
				continue
			}
			h := Handler{Method: m.Name, Name: goMethod(m), FromClient: fromClient, Notification: m.Kind == schema.Notification}
			if pt := g.paramsType(m); pt != nil {
				h.Params = render(g.paramsTypeCode(pt))
			}
			if m.Kind == schema.Request {
				h.Reply = render(g.replyCode(m))
				if rt := g.goType(&schema.Type{Kind: schema.Ref, Ref: m.Result}); m.Reply != nil {
					h.ReplyDecode = "Unmarshal" + m.Reply.Name
				} else if isUnion(rt) {
					h.ReplyDecode = "Unmarshal" + rt.underlying().named.name
				}
			}
			out = append(out, h)
		}
	}
	return out, nil
}
