package apidiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// OnlyBreaking returns the report restricted to the changes that break
// user code.
// Filter returns the report of the changes keep keeps (it may set their
// Uses).
func (r *Report) Filter(keep func(*Change) bool) *Report {
	out := *r
	out.Changes = []Change{}
	for _, c := range r.Changes {
		if keep(&c) {
			out.Changes = append(out.Changes, c)
		}
	}
	out.Summary = summarize(out.Changes)
	return &out
}

func (r *Report) OnlyBreaking() *Report {
	out := *r
	out.Changes = []Change{}
	for _, c := range r.Changes {
		if c.Breaks != "" {
			out.Changes = append(out.Changes, c)
		}
	}
	out.Summary = summarize(out.Changes)
	return &out
}

// WriteJSON writes the report as indented JSON (the shape the package
// documentation describes).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	return nil
}

func orUnknown(dir string) string {
	if dir == "" {
		return "?"
	}
	return dir
}

// sectionTitles name the kinds in the text report.
func sectionTitle(k Kind) string {
	switch k {
	case Member:
		return "union members"
	case Value:
		return "enum values"
	case Code:
		return "error codes"
	case Capability:
		return "capabilities"
	}
	return string(k) + "s"
}

// WriteText writes the report for people: a summary, then one section per
// kind, each change on a line marked "!" when code using it no longer
// compiles and "~" when it compiles but behaves differently.
func (r *Report) WriteText(w io.Writer) error {
	s := r.Summary
	fmt.Fprintf(w, "mcpgen diff %s → %s: %d changes", r.From.Revision, r.To.Revision, s.Changes)
	if s.Breaking > 0 {
		fmt.Fprintf(w, "; %d break code written for %s (%d ! stop compiling, %d ~ compile but behave differently)", s.Breaking, r.From.Revision, s.Compile, s.Runtime)
	}
	fmt.Fprintln(w)
	if r.From.Dir != "" || r.To.Dir != "" {
		fmt.Fprintf(w, "compared: %s (%s) with %s (%s)\n", orUnknown(r.From.Dir), r.From.Revision, orUnknown(r.To.Dir), r.To.Revision)
	}
	if e := r.For; e != nil {
		gen := "none"
		if len(e.Generated) > 0 {
			gen = strings.Join(e.Generated, ", ")
		}
		pkgs := "packages"
		if len(e.Packages) == 1 {
			pkgs = "package"
		}
		fmt.Fprintf(w, "examined: %d %s for %s, tests included: %s\n", len(e.Packages), pkgs, strings.Join(e.Patterns, " "), strings.Join(e.Packages, ", "))
		fmt.Fprintf(w, "checked: %d uses of the packages generated for %s (%s), %d of them composite literals\n", e.Uses, r.From.Revision, gen, e.Constructs)
	}
	for _, k := range Kinds() {
		n, ok := s.Kinds[k]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "\n%s: %s%s\n", sectionTitle(k), countsText(n), inlineText(r.Changes, k))
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		for _, c := range r.Changes {
			if c.Kind != k {
				continue
			}
			fmt.Fprintf(tw, "%s %s\t%s\t%s\n", mark(c.Breaks), c.Op, subject(c), detail(c))
			if len(c.Uses) > 0 {
				uses := c.Uses
				more := ""
				if len(uses) > 3 {
					uses, more = uses[:3], fmt.Sprintf(" (and %d more)", len(c.Uses)-3)
				}
				fmt.Fprintf(tw, "  \t  used at %s%s\n", strings.Join(uses, ", "), more)
			}
		}
		if err := tw.Flush(); err != nil {
			return fmt.Errorf("writing the report: %w", err)
		}
	}
	return nil
}

func countsText(n Counts) string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{n.Added, "added"}, {n.Removed, "removed"}, {n.Changed, "changed"}, {n.Deprecated, "deprecated"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// inlineText says how many added and removed types are named inline types
// rather than definitions of the schema.
func inlineText(changes []Change, k Kind) string {
	if k != Type {
		return ""
	}
	var added, removed int
	for _, c := range changes {
		if c.Kind == Type && c.Inline {
			switch c.Op {
			case Added:
				added++
			case Removed:
				removed++
			}
		}
	}
	if added+removed == 0 {
		return ""
	}
	return fmt.Sprintf(" (of the added and removed, %d and %d are inline types named after where they sit)", added, removed)
}

func mark(b Break) string {
	switch b {
	case Compile:
		return "!"
	case Runtime:
		return "~"
	}
	return " "
}

// subject names what changed: Type.Field ("json"), Union ∋ Member,
// method (Go name).
func subject(c Change) string {
	switch c.Kind {
	case Field, Capability:
		return fmt.Sprintf("%s.%s (%q)", c.Type, c.Name, c.JSON)
	case Member:
		return c.Type + " ∋ " + c.Name
	case Value:
		return fmt.Sprintf("%s %q", c.Name, c.JSON)
	case Method:
		return fmt.Sprintf("%s (%s)", c.JSON, c.Name)
	}
	return c.Name
}

// detail is what it was and is, and the note.
func detail(c Change) string {
	if c.Inline {
		if c.Old != "" {
			c.Old = "inline " + c.Old
		} else if c.New != "" {
			c.New = "inline " + c.New
		}
	}
	var what string
	switch {
	case c.Old != "" && c.New != "":
		what = c.Old + " → " + c.New
	case c.Old != "":
		what = c.Old
	default:
		what = c.New
	}
	if c.Note != "" {
		if what != "" {
			what += "; "
		}
		what += c.Note
	}
	return what
}
