package ts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// dropMark replaces a removed {@includeCode} so that a line holding nothing
// else can be dropped afterwards.
const dropMark = "\x00"

// parseDoc parses the raw text of a /** ... */ comment.
func parseDoc(raw string) *Doc {
	body := strings.TrimPrefix(raw, "/**")
	body = strings.TrimSuffix(body, "*/")

	// Split into the description and block-tag sections, line by line.
	type section struct {
		name  string // "" for the description
		lines []string
	}
	sections := []section{{}}
	inFence := false
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if l := strings.TrimLeft(line, " \t"); strings.HasPrefix(l, "*") {
			line = strings.TrimPrefix(l[1:], " ")
		} else {
			line = l
		}
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		if name, rest, ok := blockTag(line); ok && !inFence {
			sections = append(sections, section{name: name, lines: []string{rest}})
			continue
		}
		s := &sections[len(sections)-1]
		s.lines = append(s.lines, line)
	}

	d := &Doc{}
	for i, s := range sections {
		text := d.inline(strings.Join(s.lines, "\n"))
		if i == 0 {
			d.Text = text
			continue
		}
		d.Tags = append(d.Tags, Tag{Name: s.name, Text: text})
		switch s.name {
		case "category":
			if d.Category == "" {
				d.Category = text
			}
		case "deprecated":
			if d.Deprecated == nil {
				t := text
				d.Deprecated = &t
			}
		case "internal":
			d.Internal = true
		case "TJS-type":
			if d.TJSType == "" {
				d.TJSType = text
			}
		}
	}
	return d
}

// blockTag reports whether line starts with a block tag "@name" and returns
// the name and the rest of the line.
func blockTag(line string) (name, rest string, ok bool) {
	if len(line) < 2 || line[0] != '@' {
		return "", "", false
	}
	if r, _ := utf8.DecodeRuneInString(line[1:]); !unicode.IsLetter(r) {
		return "", "", false
	}
	end := strings.IndexFunc(line, unicode.IsSpace)
	if end < 0 {
		return line[1:], "", true
	}
	return line[1:end], strings.TrimSpace(line[end:]), true
}

// inline renders inline tags in text, recording link targets and example
// paths in d, and normalises blank lines.
func (d *Doc) inline(text string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "{@")
		if i < 0 {
			break
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			break // no closing brace anywhere further on
		}
		j += i
		b.WriteString(text[:i])
		inner := text[i+2 : j]
		name, arg := inner, ""
		if k := strings.IndexFunc(inner, unicode.IsSpace); k >= 0 {
			name, arg = inner[:k], strings.TrimSpace(inner[k:])
		}
		switch name {
		case "link", "linkcode", "linkplain":
			target, label := arg, ""
			if k := strings.IndexByte(arg, '|'); k >= 0 {
				target, label = strings.TrimSpace(arg[:k]), strings.TrimSpace(arg[k+1:])
			} else if k := strings.IndexFunc(arg, unicode.IsSpace); k >= 0 {
				target, label = arg[:k], strings.TrimSpace(arg[k:])
			}
			if target != "" {
				d.Links = append(d.Links, target)
			}
			if label != "" {
				b.WriteString(label)
			} else {
				b.WriteString(target)
			}
		case "includeCode":
			if arg != "" {
				d.Examples = append(d.Examples, arg)
			}
			b.WriteString(dropMark)
		default:
			b.WriteString(text[i : j+1])
		}
		text = text[j+1:]
	}
	b.WriteString(text)

	// Drop lines emptied by removed inline tags, collapse blank lines.
	var out []string
	blank := false
	for _, line := range strings.Split(b.String(), "\n") {
		dropped := strings.Contains(line, dropMark)
		line = strings.TrimRight(strings.ReplaceAll(line, dropMark, ""), " \t")
		if strings.TrimSpace(line) == "" {
			if !dropped {
				blank = len(out) > 0
			}
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
