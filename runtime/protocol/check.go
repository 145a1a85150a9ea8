package protocol

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
)

// CheckHandler refuses a handler that has a method named like one of the
// revision's with another signature (returning *CallToolResult where
// CallToolReply is wanted, say), or only on its pointer while it is
// mounted by value: the method would be listed nowhere and answered
// -32601, silently. served picks the methods the handler's side serves.
//
// It looks methods up only by the constant names of the generated
// Method.HandlerMethod: calling reflect's Method or MethodByName with a
// name the linker cannot see would make every program linking the
// runtime keep every exported method of every type.
func CheckHandler(p *Protocol, handler any, served func(*Method) bool) error {
	ht := reflect.TypeOf(handler)
	if ht == nil {
		return nil
	}
	names := make([]string, 0, len(p.Methods))
	for name := range p.Methods {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		md := p.Methods[name]
		it := md.HandlerType
		if it == nil || it.Kind() != reflect.Interface || it.NumMethod() != 1 || !served(md) || ht.Implements(it) {
			continue
		}
		var want reflect.Method
		if md.HandlerMethod != nil {
			want, _ = md.HandlerMethod(it)
		}
		if ht.Kind() != reflect.Pointer && reflect.PointerTo(ht).Implements(it) {
			what := "the method of " + it.String()
			if want.Name != "" {
				what = "method " + want.Name
			}
			errs = append(errs, fmt.Errorf("mcp: revision %s: %s of %s has a pointer receiver, so the %s value mounted does not serve %s: mount a pointer",
				p.Revision, what, reflect.PointerTo(ht), ht, name))
			continue
		}
		if want.Name == "" {
			continue // generated before version 10: not looked up
		}
		if m, ok := md.HandlerMethod(ht); ok {
			errs = append(errs, fmt.Errorf("mcp: revision %s: method %s of %s cannot serve %s: it is %s, want %s",
				p.Revision, want.Name, ht, name, methodType(m.Type), want.Type))
		}
	}
	return errors.Join(errs...)
}

// methodType is the type of a method value of a concrete type's method,
// whose Type has the receiver as its first parameter.
func methodType(t reflect.Type) reflect.Type {
	in := make([]reflect.Type, 0, t.NumIn())
	for i := 1; i < t.NumIn(); i++ {
		in = append(in, t.In(i))
	}
	out := make([]reflect.Type, 0, t.NumOut())
	for i := range t.NumOut() {
		out = append(out, t.Out(i))
	}
	return reflect.FuncOf(in, out, t.IsVariadic())
}
