package fromgo

import (
	"fmt"
	"go/types"
	"sort"
	"strings"
)

// A handler serves a revision by implementing the methods of its
// generated Server interface; the runtime finds them by name (a type
// assertion per method, which keeps the binary free of reflection by name),
// so a method whose name is off by a letter is never called and its
// requests are answered -32601. checkHandlers finds such methods in the
// package mcpgen tools loads: a method of one of its types that takes the
// params type of a revision's method but has another name, or, on a type
// that implements some of a revision's methods, a method whose name is one
// or two edits from one it lacks. Each is a warning naming the method it
// resembles.
func (l *loader) checkHandlers() []string {
	servers := generatedServers(l.pkg.Types)
	if len(servers) == 0 {
		return nil
	}
	var warnings []string
	scope := l.pkg.Types.Scope()
	names := scope.Names()
	sort.Strings(names)
	for _, name := range names {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() || types.IsInterface(tn.Type()) {
			continue
		}
		ms := types.NewMethodSet(types.NewPointer(tn.Type()))
		for _, srv := range servers {
			handler := false
			for i := range ms.Len() {
				if srv.methods[ms.At(i).Obj().Name()] != nil {
					handler = true
				}
			}
			for i := range ms.Len() {
				fn := ms.At(i).Obj().(*types.Func)
				if !fn.Exported() || fn.Pkg() != l.pkg.Types || srv.methods[fn.Name()] != nil {
					continue
				}
				want, why := srv.resembled(fn, handler)
				if want == "" {
					continue
				}
				warnings = append(warnings, fmt.Sprintf("%s: method %s of %s looks meant to serve %s.Server's %s (%s), but is named otherwise: the server never calls it, and its requests are answered -32601; name it %s",
					l.pkg.Fset.Position(fn.Pos()), fn.Name(), types.TypeString(types.NewPointer(tn.Type()), types.RelativeTo(l.pkg.Types)), srv.pkg.Name(), want, why, want))
			}
		}
	}
	return warnings
}

// generatedServer is the Server interface of a package mcpgen generated
// that the loaded package imports.
type generatedServer struct {
	pkg     *types.Package
	methods map[string]*types.Func
	// byParams names the method taking each params type.
	byParams map[string]string
}

// generatedServers finds, among the imports of pkg, the packages of a
// revision (a Server interface and a Mount function).
func generatedServers(pkg *types.Package) []*generatedServer {
	var out []*generatedServer
	for _, imp := range pkg.Imports() {
		st, ok := imp.Scope().Lookup("Server").(*types.TypeName)
		if !ok || imp.Scope().Lookup("Mount") == nil {
			continue
		}
		it, ok := st.Type().Underlying().(*types.Interface)
		if !ok {
			continue
		}
		srv := &generatedServer{pkg: imp, methods: map[string]*types.Func{}, byParams: map[string]string{}}
		for i := range it.NumMethods() {
			m := it.Method(i)
			srv.methods[m.Name()] = m
			if p := paramsType(m); p != "" {
				srv.byParams[p] = m.Name()
			}
		}
		out = append(out, srv)
	}
	return out
}

// paramsType is the type of a handler method's params (its second
// parameter, after the context), as a string; "" for none.
func paramsType(fn *types.Func) string {
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() < 2 {
		return ""
	}
	return types.TypeString(sig.Params().At(1).Type(), nil)
}

// resembled names the method of s that fn seems meant to be, and why;
// "" when none. handler reports a type that implements some of s's
// methods (only then are names compared).
func (s *generatedServer) resembled(fn *types.Func, handler bool) (string, string) {
	if p := paramsType(fn); p != "" {
		if want := s.byParams[p]; want != "" {
			return want, "it takes *" + strings.TrimPrefix(types.TypeString(fn.Type().(*types.Signature).Params().At(1).Type(), types.RelativeTo(s.pkg)), "*")
		}
	}
	if !handler || len(fn.Name()) < 4 {
		return "", ""
	}
	best, dist := "", 3
	for name := range s.methods {
		if d := editDistance(strings.ToLower(fn.Name()), strings.ToLower(name)); d < dist || (d == dist && name < best) {
			best, dist = name, d
		}
	}
	if best == "" {
		return "", ""
	}
	return best, "its name is one or two letters from it"
}

// editDistance is the edit distance of a and b: insertions, deletions,
// substitutions and transpositions of adjacent letters ("mpc" is one edit
// from "mcp"), each one edit.
func editDistance(a, b string) int {
	// d[i][j] is the distance of a[:i] and b[:j] (optimal string
	// alignment).
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
