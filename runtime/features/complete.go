package features

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// completion/complete for the set's prompts and templates.

// maxCompletions is the most values a completion result carries (the
// spec's bound).
const maxCompletions = 100

// complete answers completion/complete for a prompt or template of the
// set that completes; anything else is left to the handler (or answered
// with no values).
func (s *Set) complete(ctx context.Context, req *Request) (wire.Raw, error) {
	var ref struct{ typ, name, uri string }
	var arg struct{ name, value string }
	var resolved map[string]string
	d := wire.NewDecoder(req.Params)
	err := d.Object(func(key []byte) error {
		switch string(key) {
		case "ref":
			return d.Object(func(k []byte) error {
				var err error
				switch string(k) {
				case "type":
					ref.typ, err = d.Str()
				case "name":
					ref.name, err = d.Str()
				case "uri":
					ref.uri, err = d.Str()
				default:
					err = d.Skip()
				}
				return err
			})
		case "argument":
			return d.Object(func(k []byte) error {
				var err error
				switch string(k) {
				case "name":
					arg.name, err = d.Str()
				case "value":
					arg.value, err = d.Str()
				default:
					err = d.Skip()
				}
				return err
			})
		case "context":
			return d.Object(func(k []byte) error {
				if string(k) != "arguments" {
					return d.Skip()
				}
				resolved = map[string]string{}
				return d.Object(func(name []byte) error {
					v, err := d.Str()
					resolved[string(name)] = v
					return err
				})
			})
		}
		return d.Skip()
	})
	if err != nil {
		return nil, mcp.InvalidParams("/params", "completion/complete: "+err.Error())
	}
	var complete Completer
	s.mu.RLock()
	switch ref.typ {
	case "ref/prompt":
		for _, p := range s.prompts {
			if p.Name == ref.name && p.Eras.serves(req.Protocol) && sees(ctx, p.Visible) {
				complete = p.Complete
			}
		}
	case "ref/resource":
		for _, t := range s.templates {
			if t.URITemplate == ref.uri && sees(ctx, t.Visible) {
				complete = t.Complete
			}
		}
	}
	s.mu.RUnlock()
	if complete == nil {
		if req.Handled {
			return nil, ErrNotInSet
		}
		complete = func(context.Context, string, string, map[string]string) ([]string, error) { return nil, nil }
	}
	values, err := complete(ctx, arg.name, arg.value, resolved)
	if err != nil {
		return nil, err
	}
	e := wire.GetEncoder()
	defer wire.PutEncoder(e)
	e.ObjectStart()
	e.FieldRaw(`"completion":{"values":`)
	e.ArrayStart()
	for i, v := range values {
		if i == maxCompletions {
			break
		}
		e.Str(v)
	}
	e.ArrayEnd()
	if len(values) > maxCompletions {
		e.Field("total")
		e.Int64(int64(len(values)))
		e.Field("hasMore")
		e.Bool(true)
	}
	e.ObjectEnd()
	mcp.WriteStamp(e, req.Stamp)
	e.ObjectEnd()
	return append(wire.Raw(nil), e.Bytes()...), e.Err()
}
