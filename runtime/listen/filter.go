package listen

import (
	"slices"

	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Filter is what a subscriptions/listen request opts into: the
// notifications member of its params. Stream writes it for a stateful
// session's stand-in and the server's streams read it.
type Filter struct {
	ToolsListChanged, PromptsListChanged, ResourcesListChanged bool
	// ResourceSubscriptions are the URIs whose updates are wanted.
	ResourceSubscriptions []string
}

// ParseFilter reads params.notifications of a listen request (the
// zero filter when absent or malformed: the params' validation is the
// method's).
func ParseFilter(params wire.Raw) Filter {
	var f Filter
	if len(params) == 0 {
		return f
	}
	d := wire.NewDecoder(params)
	_ = d.Object(func(key []byte) error {
		if string(key) != "notifications" {
			return d.Skip()
		}
		return d.Object(func(key []byte) error {
			var err error
			switch string(key) {
			case "toolsListChanged":
				f.ToolsListChanged, err = d.Bool()
			case "promptsListChanged":
				f.PromptsListChanged, err = d.Bool()
			case "resourcesListChanged":
				f.ResourcesListChanged, err = d.Bool()
			case "resourceSubscriptions":
				err = d.Array(func() error {
					u, err := d.Str()
					f.ResourceSubscriptions = append(f.ResourceSubscriptions, u)
					return err
				})
			default:
				err = d.Skip()
			}
			return err
		})
	})
	return f
}

// EncodeJSON implements wire.Marshaler: the notifications object, with the
// members set.
func (f Filter) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	if f.ToolsListChanged {
		e.FieldRaw(`"toolsListChanged":`)
		e.Bool(true)
	}
	if f.PromptsListChanged {
		e.Field("promptsListChanged")
		e.Bool(true)
	}
	if f.ResourcesListChanged {
		e.Field("resourcesListChanged")
		e.Bool(true)
	}
	if len(f.ResourceSubscriptions) > 0 {
		e.Field("resourceSubscriptions")
		e.ArrayStart()
		for _, u := range f.ResourceSubscriptions {
			e.Str(u)
		}
		e.ArrayEnd()
	}
	e.ObjectEnd()
}

// Wants reports whether a notification in role r (about uri, for updates)
// passes f.
func (f Filter) Wants(r protocol.Role, uri string) bool {
	switch r {
	case protocol.RoleToolsListChanged:
		return f.ToolsListChanged
	case protocol.RolePromptsListChanged:
		return f.PromptsListChanged
	case protocol.RoleResourcesListChanged:
		return f.ResourcesListChanged
	case protocol.RoleResourceUpdated:
		return slices.Contains(f.ResourceSubscriptions, uri)
	}
	return false
}
