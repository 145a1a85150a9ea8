package gen

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

const wrapWidth = 76

// docLines turns a description into comment lines for the Go declaration
// name: the first sentence is made to start with the name, as Go doc
// comments do, and long lines are wrapped.
func docLines(name, text string, deprecated *string) []string {
	text = strings.TrimSpace(text)
	var lines []string
	if text == "" {
		lines = []string{name + " is defined by the schema."}
	} else {
		lines = wrap(leadWithName(name, text))
	}
	if deprecated != nil {
		lines = append(lines, "")
		d := strings.TrimSpace(*deprecated)
		if d == "" {
			d = "the MCP schema marks it deprecated."
		}
		lines = append(lines, wrap("Deprecated: "+d)...)
	}
	return lines
}

// verbs are the first words of descriptions that read as "Name <verb>s ...".
var verbs = map[string]bool{
	"Describes": true, "Represents": true, "Indicates": true, "Identifies": true, "Contains": true,
	"Specifies": true, "Provides": true, "Defines": true, "Returns": true, "Sends": true, "Allows": true,
	"Enables": true, "Controls": true, "Holds": true, "Lists": true, "Carries": true, "Reports": true,
	"Includes": true, "Requests": true, "Notifies": true, "Asks": true, "Refers": true, "Tells": true,
	"Determines": true, "Declares": true, "Informs": true, "Tracks": true,
}

// leadWithName makes a description start with the declared name, as Go doc
// comments do: "A request to ..." becomes "Name is a request to ...".
func leadWithName(name, text string) string {
	first, rest, _ := strings.Cut(text, " ")
	lower := lowerFirst(first)
	switch {
	case first == "A" || first == "An" || first == "The":
		return name + " is " + lower + " " + rest
	case first == "Used" || first == "Sent" || first == "Present" || first == "Returned":
		return name + " is " + lower + " " + rest
	case verbs[first]:
		return name + " " + lower + " " + rest
	case first == "Parameters" || first == "Capabilities" || first == "Hints" || first == "Additional" || first == "Optional":
		return name + " holds " + lower + " " + rest
	}
	return name + ": " + text
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	// Keep acronyms (URI, JSON) as they are.
	if len(s) > n {
		if r2, _ := utf8.DecodeRuneInString(s[n:]); unicode.IsUpper(r2) {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// wrap reflows text for a comment: the lines of a paragraph or list item
// are joined and rewrapped; blank lines, list items, headings, tables and
// fenced code keep their place.
func wrap(text string) []string {
	var out []string
	var cur, indent string
	flush := func() {
		if cur != "" {
			out = append(out, wrapLine(cur, indent)...)
			cur = ""
		}
	}
	fence := false
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimRightFunc(raw, unicode.IsSpace)
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case strings.HasPrefix(trimmed, "```"):
			flush()
			out = append(out, line)
			fence = !fence
		case fence:
			out = append(out, line)
		case trimmed == "":
			flush()
			if len(out) > 0 && out[len(out)-1] != "" {
				out = append(out, "")
			}
		case cur == "" || startsBlock(trimmed):
			flush()
			cur = line
			lead := line[:len(line)-len(trimmed)]
			indent = lead
			if marker := listMarker(trimmed); marker != "" {
				indent = lead + strings.Repeat(" ", len(marker))
			}
			if strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, "#") {
				out = append(out, line)
				cur = ""
			}
		default:
			cur += " " + trimmed
		}
	}
	flush()
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func startsBlock(trimmed string) bool {
	return listMarker(trimmed) != "" || strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, "#")
}

// listMarker returns "- ", "* " or "1. " when the line starts a list item.
func listMarker(trimmed string) string {
	if strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "* ") {
		return trimmed[:2]
	}
	i := 0
	for i < len(trimmed) && trimmed[i] >= '0' && trimmed[i] <= '9' {
		i++
	}
	if i > 0 && strings.HasPrefix(trimmed[i:], ". ") {
		return trimmed[:i+2]
	}
	return ""
}

// wrapLine breaks one long line at spaces; continuation lines get indent.
func wrapLine(line, indent string) []string {
	var out []string
	for utf8.RuneCountInString(line) > wrapWidth {
		cut := strings.LastIndex(line[:wrapWidth], " ")
		if cut <= len(indent) {
			// A word longer than the width: break after it.
			next := strings.Index(line[len(indent)+1:], " ")
			if next < 0 {
				break
			}
			cut = len(indent) + 1 + next
		}
		out = append(out, line[:cut])
		line = indent + strings.TrimLeft(line[cut+1:], " ")
	}
	return append(out, line)
}

// comment adds a doc comment to a file.
func comment(f *jen.File, lines []string) {
	for _, l := range lines {
		if l == "" {
			f.Comment("")
			continue
		}
		f.Comment(l)
	}
}

// commentCode is comment for struct fields and blocks.
func commentCode(lines []string) []jen.Code {
	var out []jen.Code
	for _, l := range lines {
		out = append(out, jen.Comment(l))
	}
	return out
}

// where names the place of an inline type: "ServerCapabilities.prompts".
func where(path string) string {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(parts) < 2 {
		return path
	}
	var b strings.Builder
	b.WriteString(parts[1]) // after $defs / definitions
	for i := 2; i < len(parts); i++ {
		switch p := parts[i]; p {
		case "properties":
			if i+1 < len(parts) {
				b.WriteString(".")
				b.WriteString(strings.ReplaceAll(strings.ReplaceAll(parts[i+1], "~1", "/"), "~0", "~"))
				i++
			}
		case "items":
			b.WriteString("[]")
		case "additionalProperties":
			b.WriteString("{}")
		case "anyOf", "type":
			if i+1 < len(parts) {
				i++
			}
			b.WriteString("|")
		}
	}
	return b.String()
}

// typeDoc is the doc comment of a named type.
func typeDoc(n *named) []string {
	if m := n.replyOf; m != nil {
		return []string{fmt.Sprintf("%s is what a %s request is answered with.", n.name, m.Name)}
	}
	if n.def != nil {
		return docLines(n.name, n.def.Doc.Text, n.def.Doc.Deprecated)
	}
	lines := []string{n.name + " is the type of " + where(n.t.Path) + "."}
	if d := strings.TrimSpace(n.t.Doc); d != "" {
		lines = append(lines, "")
		lines = append(lines, wrap(d)...)
	}
	return lines
}

// fieldDoc is the doc comment of a struct field.
func fieldDoc(p *schema.Prop) []string {
	if strings.TrimSpace(p.Doc.Text) == "" && p.Doc.Deprecated == nil {
		return nil
	}
	text := p.Doc.Text
	if strings.TrimSpace(text) == "" {
		text = p.GoName + " is the " + p.Name + " member."
	} else {
		text = leadWithName(p.GoName, strings.TrimSpace(text))
	}
	lines := wrap(text)
	if p.Doc.Deprecated != nil {
		lines = append(lines, "")
		d := strings.TrimSpace(*p.Doc.Deprecated)
		if d == "" {
			d = "the MCP schema marks it deprecated."
		}
		lines = append(lines, wrap("Deprecated: "+d)...)
	}
	return lines
}
