package features

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// What NewServer refuses of a set's items (Attach, through declare): an
// item no client could use, or whose listing would not be JSON. A tool or
// prompt without a name, a resource without an absolute URI, a template
// without one, an item without the function that serves it, and _meta or
// a schema that is not one JSON object are programming errors, reported
// when the server is built rather than as a broken list or an internal
// error at the first call.

// toolProblem is what makes t unservable, or nil.
func toolProblem(t *Tool) error {
	switch {
	case t.Name == "":
		return errors.New("features: a tool has no Name")
	case t.Call == nil:
		return fmt.Errorf("features: tool %s has no Call", t.Name)
	}
	if err := objectJSON(t.InputSchema); err != nil {
		return fmt.Errorf("features: tool %s: its inputSchema %w", t.Name, err)
	}
	if err := objectJSON(t.OutputSchema); err != nil {
		return fmt.Errorf("features: tool %s: its outputSchema %w", t.Name, err)
	}
	if err := objectJSON(t.Meta); err != nil {
		return fmt.Errorf("features: tool %s: its Meta %w", t.Name, err)
	}
	return nil
}

// promptProblem is what makes p unservable, or nil.
func promptProblem(p *Prompt) error {
	switch {
	case p.Name == "":
		return errors.New("features: a prompt has no Name")
	case p.Get == nil:
		return fmt.Errorf("features: prompt %s has no Get", p.Name)
	}
	for _, a := range p.Arguments {
		if a.Name == "" {
			return fmt.Errorf("features: prompt %s has an argument without a Name", p.Name)
		}
	}
	if err := objectJSON(p.Meta); err != nil {
		return fmt.Errorf("features: prompt %s: its Meta %w", p.Name, err)
	}
	return nil
}

// resourceProblem is what makes r unservable, or nil.
func resourceProblem(r *Resource) error {
	if u, err := url.Parse(r.URI); r.URI == "" || err != nil || u.Scheme == "" {
		return fmt.Errorf("features: resource %q: its URI is not an absolute URI", r.URI)
	}
	if r.Read == nil {
		return fmt.Errorf("features: resource %s has no Read", r.URI)
	}
	if err := objectJSON(r.Meta); err != nil {
		return fmt.Errorf("features: resource %s: its Meta %w", r.URI, err)
	}
	if err := objectJSON(r.ContentsMeta); err != nil {
		return fmt.Errorf("features: resource %s: its ContentsMeta %w", r.URI, err)
	}
	return nil
}

// templateProblem is what makes t unservable, or nil.
func templateProblem(t *Template) error {
	switch {
	case t.URITemplate == "":
		return errors.New("features: a template has no URITemplate")
	case t.Read == nil:
		return fmt.Errorf("features: template %s has no Read", t.URITemplate)
	}
	if err := objectJSON(t.Meta); err != nil {
		return fmt.Errorf("features: template %s: its Meta %w", t.URITemplate, err)
	}
	return nil
}

// objectJSON is nil for an absent value or one JSON object, else what it
// is instead ("is not ...").
func objectJSON(raw wire.Raw) error {
	if len(raw) == 0 {
		return nil
	}
	if wire.NewDecoder(raw).Peek() != wire.Object {
		return errors.New("is not a JSON object")
	}
	if err := wire.CheckJSON(raw); err != nil {
		return fmt.Errorf("is not JSON: %w", err)
	}
	return nil
}
