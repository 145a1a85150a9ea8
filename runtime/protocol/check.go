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
func CheckHandler(p *Protocol, handler any, served func(*Method) bool) error {
	hv := reflect.ValueOf(handler)
	if !hv.IsValid() {
		return nil
	}
	ht := hv.Type()
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
		want := it.Method(0)
		if m, ok := ht.MethodByName(want.Name); ok {
			errs = append(errs, fmt.Errorf("mcp: revision %s: method %s of %s cannot serve %s: it is %s, want %s",
				p.Revision, want.Name, ht, name, hv.Method(m.Index).Type(), want.Type))
		} else if ht.Kind() != reflect.Pointer && reflect.PointerTo(ht).Implements(it) {
			errs = append(errs, fmt.Errorf("mcp: revision %s: method %s of %s has a pointer receiver, so the %s value mounted does not serve %s: mount a pointer",
				p.Revision, want.Name, reflect.PointerTo(ht), ht, name))
		}
	}
	return errors.Join(errs...)
}
