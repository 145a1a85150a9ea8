package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/mcpgen/mcpgen/gen/apidiff"
)

// usesOf is what a user's packages use of the packages mcpgen generated
// for one revision (mcpgen diff --for): the types, fields, constants and
// methods they name, each with where.
type usesOf struct {
	types   map[string][]token.Position
	fields  map[[2]string][]token.Position // type, field
	consts  map[string][]token.Position
	methods map[string][]token.Position // typed calls used, handler methods declared
	// enums are the uses of an enum's constants, by the enum's type;
	// constructs the composite literals of a generated struct, by type.
	enums      map[string][]token.Position
	constructs map[string][]token.Position
	gen        map[*types.Package]bool // the packages of the revision
	dir        string                  // positions are shown relative to it
	// examined are the user's packages loaded (tests included), by path;
	// uses counts the distinct positions recorded.
	examined []string
	uses     int
}

// loadUses loads the packages patterns name (go/packages, from dir) and
// records their uses of every package generated for revision: one whose
// Revision constant is revision.
func loadUses(dir string, patterns []string, revision string) (*usesOf, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports,
		Dir:  dir,
		// A use in a _test.go file is a use an upgrade must look at.
		Tests: true,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("--for: loading %v: %w", patterns, err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("--for: %v names no package", patterns)
	}
	u := &usesOf{types: map[string][]token.Position{}, fields: map[[2]string][]token.Position{}, consts: map[string][]token.Position{},
		methods: map[string][]token.Position{}, enums: map[string][]token.Position{}, constructs: map[string][]token.Position{},
		gen: map[*types.Package]bool{}, dir: dir}
	examined := map[string]bool{}
	isGen := func(p *types.Package) bool {
		if p == nil {
			return false
		}
		if v, ok := u.gen[p]; ok {
			return v
		}
		c, ok := p.Scope().Lookup("Revision").(*types.Const)
		v := ok && c.Val().Kind() == constant.String && constant.StringVal(c.Val()) == revision
		u.gen[p] = v
		return v
	}
	owners := map[*types.Var]string{} // a generated struct's fields, by object
	ownerOf := func(f *types.Var) string {
		if name, ok := owners[f]; ok {
			return name
		}
		for _, name := range f.Pkg().Scope().Names() {
			tn, ok := f.Pkg().Scope().Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			if st, ok := tn.Type().Underlying().(*types.Struct); ok {
				for i := range st.NumFields() {
					owners[st.Field(i)] = name
				}
			}
		}
		return owners[f]
	}
	var errs []error
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("--for: the packages do not load: %v", errs[0])
	}
	for _, p := range pkgs {
		if p.TypesInfo == nil || generatedOnly(p) || strings.HasSuffix(p.ID, ".test") {
			continue // mcpgen's own packages (the revision's, bridges) and test mains are not the user's code
		}
		examined[p.PkgPath] = true
		for id, obj := range p.TypesInfo.Uses {
			if obj == nil || !isGen(obj.Pkg()) {
				continue
			}
			pos := p.Fset.Position(id.Pos())
			switch o := obj.(type) {
			case *types.TypeName:
				u.types[o.Name()] = append(u.types[o.Name()], pos)
			case *types.Var:
				if o.IsField() {
					if owner := ownerOf(o); owner != "" {
						k := [2]string{owner, o.Name()}
						u.fields[k] = append(u.fields[k], pos)
					}
				}
			case *types.Const:
				u.consts[o.Name()] = append(u.consts[o.Name()], pos)
				if named := namedOf(o.Type()); named != nil {
					u.enums[named.Obj().Name()] = append(u.enums[named.Obj().Name()], pos)
				}
			case *types.Func:
				u.methods[o.Name()] = append(u.methods[o.Name()], pos)
			}
		}
		// A value the user builds of a generated struct: a required member
		// added to it makes the value invalid.
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if tv, ok := p.TypesInfo.Types[lit]; ok {
					if named := namedOf(tv.Type); named != nil && isGen(named.Obj().Pkg()) {
						if _, isStruct := named.Underlying().(*types.Struct); isStruct {
							name := named.Obj().Name()
							u.constructs[name] = append(u.constructs[name], p.Fset.Position(lit.Pos()))
						}
					}
				}
				return true
			})
		}
		// A handler method the user declares: named like a method of the
		// revision, taking its types.
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv == nil {
					continue
				}
				fn, _ := p.TypesInfo.Defs[fd.Name].(*types.Func)
				if fn == nil {
					continue
				}
				sig := fn.Type().(*types.Signature)
				for i := range sig.Params().Len() {
					if named := namedOf(sig.Params().At(i).Type()); named != nil && isGen(named.Obj().Pkg()) {
						u.methods[fn.Name()] = append(u.methods[fn.Name()], p.Fset.Position(fd.Name.Pos()))
						break
					}
				}
			}
		}
	}
	// A package and its test variant share files: each position once.
	all := map[token.Position]bool{}
	for _, m := range []map[string][]token.Position{u.types, u.consts, u.methods, u.enums, u.constructs} {
		for k, ps := range m {
			m[k] = uniquePositions(ps, all)
		}
	}
	for k, ps := range u.fields {
		u.fields[k] = uniquePositions(ps, all)
	}
	u.uses = len(all)
	for path := range examined {
		u.examined = append(u.examined, path)
	}
	sort.Strings(u.examined)
	return u, nil
}

// uniquePositions sorts ps and drops repeats, recording each in all.
func uniquePositions(ps []token.Position, all map[token.Position]bool) []token.Position {
	sortPositions(ps)
	out := ps[:0]
	for i, p := range ps {
		if i > 0 && p == ps[i-1] {
			continue
		}
		all[p] = true
		out = append(out, p)
	}
	return out
}

// constructCount counts the composite literals recorded.
func (u *usesOf) constructCount() int {
	n := 0
	for _, ps := range u.constructs {
		n += len(ps)
	}
	return n
}

// namedOf is the named type t is, or points to.
func namedOf(t types.Type) *types.Named {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, _ := t.(*types.Named)
	return n
}

func sortPositions(ps []token.Position) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].Filename != ps[j].Filename {
			return ps[i].Filename < ps[j].Filename
		}
		return ps[i].Line < ps[j].Line
	})
}

// keep reports whether the code uses what c changed, and sets its Uses.
func (u *usesOf) keep(c *apidiff.Change) bool {
	var ps []token.Position
	switch {
	case c.Kind == apidiff.Type:
		ps = u.types[c.Name]
	case c.Kind == apidiff.Field && c.Op == apidiff.Added && c.Breaks == apidiff.Runtime:
		// A required member added: the values the code builds lack it.
		ps = u.constructs[c.Type]
	case c.Kind == apidiff.Field, c.Kind == apidiff.Capability:
		ps = u.fields[[2]string{c.Type, c.Name}]
	case c.Kind == apidiff.Member && c.Op == apidiff.Added:
		ps = u.types[c.Type] // a type switch over the union
	case c.Kind == apidiff.Member:
		ps = u.types[c.Name]
	case c.Kind == apidiff.Value && c.Op == apidiff.Added:
		// A widened enum: where the code compares or switches on it.
		ps = append(append([]token.Position(nil), u.enums[c.Type]...), u.types[c.Type]...)
		sortPositions(ps)
	case c.Kind == apidiff.Value, c.Kind == apidiff.Constant, c.Kind == apidiff.Code:
		ps = u.consts[c.Name]
	case c.Kind == apidiff.Method:
		ps = u.methods[c.Name]
	}
	if len(ps) == 0 {
		return false
	}
	seen := map[string]bool{}
	for _, p := range ps {
		name := p.Filename
		if rel, err := filepath.Rel(u.dir, name); err == nil {
			name = rel
		}
		at := fmt.Sprintf("%s:%d", name, p.Line)
		if !seen[at] {
			seen[at] = true
			c.Uses = append(c.Uses, at)
		}
	}
	return true
}

// generated lists the packages of the revision the code imports.
func (u *usesOf) generated() []string {
	var out []string
	for p, ok := range u.gen {
		if ok {
			out = append(out, p.Path())
		}
	}
	sort.Strings(out)
	return out
}

// generatedOnly reports a package of generated files only (*.gen.go).
func generatedOnly(p *packages.Package) bool {
	for _, f := range p.GoFiles {
		if !strings.HasSuffix(f, ".gen.go") {
			return false
		}
	}
	return len(p.GoFiles) > 0
}
