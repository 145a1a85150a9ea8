// Command runtimemetrics measures the shape of the runtime's packages, for
// the notes of refactoring issues: per package its lines, files, exported
// identifiers and the references between its files, and the revision date
// literals in runtime code.
//
//	go run ./internal/runtimemetrics [-pkg ./runtime/...]
//
// References between files are the edges of the file graph: file A uses a
// package-level object, method or field declared in file B ≠ A.
// The files of a package are laid out bottom-up so that as few edges of
// the file graph as possible run upward (a greedy feedback-arc-set order);
// an edge (file A uses something file B declares) that still does is one
// the package's files cannot be read bottom-up past.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	pattern := flag.String("pkg", "./runtime/...", "package pattern")
	verbose := flag.Bool("v", false, "list the exported identifiers and upward references")
	flag.Parse()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, *pattern)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].PkgPath < pkgs[j].PkgPath })
	fmt.Printf("%-50s %6s %5s %8s %6s %6s\n", "package", "lines", "files", "exported", "refs", "upward")
	dates := regexp.MustCompile(`"(19|20)\d\d-\d\d-\d\d"`)
	var literals []string
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			fmt.Fprintln(os.Stderr, p.PkgPath, p.Errors)
			continue
		}
		lines := 0
		for _, f := range p.Syntax {
			name := p.Fset.Position(f.Pos()).Filename
			src, _ := os.ReadFile(name)
			lines += strings.Count(string(src), "\n")
			if !strings.HasSuffix(p.Name, "test") { // test kits (sessionstoretest) hold test data
				literals = append(literals, literalsIn(p.Fset, f, dates)...)
			}
		}
		exp := exported(p.Types)
		refs, up, upList := references(p)
		fmt.Printf("%-50s %6d %5d %8d %6d %6d\n", p.PkgPath, lines, len(p.Syntax), len(exp), refs, up)
		if *verbose {
			for _, e := range exp {
				fmt.Println("    ", e)
			}
			for _, u := range upList {
				fmt.Println("   ^", u)
			}
		}
	}
	fmt.Printf("revision date literals in runtime code: %d\n", len(literals))
	for _, l := range literals {
		fmt.Println("    ", l)
	}
}

// literalsIn lists the string literals of f that look like a revision date.
func literalsIn(fset *token.FileSet, f *ast.File, re *regexp.Regexp) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CommentGroup); ok && c != nil {
			return false
		}
		if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING && re.MatchString(bl.Value) {
			pos := fset.Position(bl.Pos())
			out = append(out, fmt.Sprintf("%s:%d %s", rel(pos.Filename), pos.Line, bl.Value))
		}
		return true
	})
	return out
}

func rel(name string) string {
	wd, _ := os.Getwd()
	if r, err := filepath.Rel(wd, name); err == nil {
		return r
	}
	return name
}

// exported lists the exported identifiers a user of the package sees:
// package-level names and the exported methods of exported types.
func exported(pkg *types.Package) []string {
	var out []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		out = append(out, kind(obj)+" "+name)
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		for _, t := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			ms := types.NewMethodSet(t)
			for i := 0; i < ms.Len(); i++ {
				m := ms.At(i).Obj()
				if m.Exported() && m.Pkg() == pkg && len(ms.At(i).Index()) == 1 {
					if _, isIface := tn.Type().Underlying().(*types.Interface); isIface {
						continue // an interface's methods are part of its type
					}
					if t == tn.Type() || !hasValueMethod(tn.Type(), m.Name()) {
						out = append(out, "method "+name+"."+m.Name())
					}
				}
			}
		}
	}
	return out
}

func hasValueMethod(t types.Type, name string) bool {
	ms := types.NewMethodSet(t)
	for i := 0; i < ms.Len(); i++ {
		if ms.At(i).Obj().Name() == name {
			return true
		}
	}
	return false
}

func kind(obj types.Object) string {
	switch obj.(type) {
	case *types.Func:
		return "func"
	case *types.TypeName:
		return "type"
	case *types.Const:
		return "const"
	case *types.Var:
		return "var"
	}
	return "?"
}

// references counts the (file, object) pairs where a file of p uses an
// object declared in another of its files, and those on a cycle.
func references(p *packages.Package) (int, int, []string) {
	fileOf := func(pos token.Pos) string { return filepath.Base(p.Fset.Position(pos).Filename) }
	type edge struct{ from, to string }
	pairs := map[[2]string]string{} // (from file, object id) -> to file
	graph := map[string]map[string]bool{}
	for id, obj := range p.TypesInfo.Uses {
		if obj == nil || obj.Pkg() != p.Types || !obj.Pos().IsValid() {
			continue
		}
		if v, ok := obj.(*types.Var); ok && !v.IsField() && obj.Parent() != p.Types.Scope() {
			continue // locals and parameters
		}
		if _, ok := obj.(*types.Label); ok {
			continue
		}
		if obj.Parent() != nil && obj.Parent() != p.Types.Scope() && obj.Parent() != types.Universe {
			if _, ok := obj.(*types.TypeName); ok {
				continue // local types
			}
			if _, ok := obj.(*types.Const); ok {
				continue
			}
		}
		from, to := fileOf(id.Pos()), fileOf(obj.Pos())
		if from == to || strings.HasSuffix(from, "_test.go") {
			continue
		}
		key := [2]string{from, objID(obj)}
		pairs[key] = to
		if graph[from] == nil {
			graph[from] = map[string]bool{}
		}
		graph[from][to] = true
	}
	order := layering(graph)
	up, edges := 0, 0
	var list []string
	for from, tos := range graph {
		for to := range tos {
			edges++
			if order[to] > order[from] {
				up++
				var objs []string
				for key, t := range pairs {
					if key[0] == from && t == to {
						objs = append(objs, key[1])
					}
				}
				sort.Strings(objs)
				list = append(list, fmt.Sprintf("%s -> %s %v", from, to, objs))
			}
		}
	}
	sort.Strings(list)
	return edges, up, list
}

// layering orders the files bottom-up so that few references run upward
// (a file using one above it): the greedy feedback-arc-set order of Eades,
// Lin and Smyth. order[f] is f's height: 0 is the bottom.
func layering(graph map[string]map[string]bool) map[string]int {
	nodes := map[string]bool{}
	in := map[string]map[string]bool{}
	for from, tos := range graph {
		nodes[from] = true
		for to := range tos {
			nodes[to] = true
			if in[to] == nil {
				in[to] = map[string]bool{}
			}
			in[to][from] = true
		}
	}
	out := map[string]map[string]bool{}
	for from, tos := range graph {
		out[from] = map[string]bool{}
		for to := range tos {
			if to != from {
				out[from][to] = true
			}
		}
	}
	live := func(set map[string]bool) int {
		n := 0
		for m := range set {
			if nodes[m] {
				n++
			}
		}
		return n
	}
	var bottom, top []string // bottom: used by others only; top: users only
	for len(nodes) > 0 {
		changed := true
		for changed {
			changed = false
			for _, n := range sortedKeys(nodes) {
				if live(out[n]) == 0 { // uses nothing left: goes low
					bottom = append(bottom, n)
					delete(nodes, n)
					changed = true
				} else if live(in[n]) == 0 { // nothing left uses it: goes high
					top = append(top, n)
					delete(nodes, n)
					changed = true
				}
			}
		}
		if len(nodes) == 0 {
			break
		}
		best, score := "", -1<<30
		for _, n := range sortedKeys(nodes) {
			if d := live(in[n]) - live(out[n]); d > score {
				best, score = n, d
			}
		}
		bottom = append(bottom, best) // used by most, using least: low
		delete(nodes, best)
	}
	order := map[string]int{}
	for i, n := range bottom {
		order[n] = i
	}
	for i, n := range top {
		order[n] = len(bottom) + len(top) - 1 - i
	}
	return order
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func objID(obj types.Object) string {
	if f, ok := obj.(*types.Func); ok {
		if sig, ok := f.Type().(*types.Signature); ok && sig.Recv() != nil {
			return types.TypeString(sig.Recv().Type(), func(*types.Package) string { return "" }) + "." + f.Name()
		}
	}
	if v, ok := obj.(*types.Var); ok && v.IsField() {
		return "field " + v.Name() + "@" + fmt.Sprint(v.Pos())
	}
	return obj.Name()
}
