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
	gen     map[*types.Package]bool     // the packages of the revision
	dir     string                      // positions are shown relative to it
}

// loadUses loads the packages patterns name (go/packages, from dir) and
// records their uses of every package generated for revision: one whose
// Revision constant is revision.
func loadUses(dir string, patterns []string, revision string) (*usesOf, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports,
		Dir:  dir,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("--for: loading %v: %w", patterns, err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("--for: %v names no package", patterns)
	}
	u := &usesOf{types: map[string][]token.Position{}, fields: map[[2]string][]token.Position{}, consts: map[string][]token.Position{},
		methods: map[string][]token.Position{}, gen: map[*types.Package]bool{}, dir: dir}
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
		if p.TypesInfo == nil || generatedOnly(p) {
			continue // mcpgen's own packages (the revision's, bridges) are not the user's code
		}
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
			case *types.Func:
				u.methods[o.Name()] = append(u.methods[o.Name()], pos)
			}
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
	for _, m := range []map[string][]token.Position{u.types, u.consts, u.methods} {
		for _, ps := range m {
			sortPositions(ps)
		}
	}
	for _, ps := range u.fields {
		sortPositions(ps)
	}
	return u, nil
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
	switch c.Kind {
	case apidiff.Type:
		ps = u.types[c.Name]
	case apidiff.Field, apidiff.Capability:
		ps = u.fields[[2]string{c.Type, c.Name}]
	case apidiff.Member:
		ps = u.types[c.Name]
	case apidiff.Value, apidiff.Constant, apidiff.Code:
		ps = u.consts[c.Name]
	case apidiff.Method:
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
