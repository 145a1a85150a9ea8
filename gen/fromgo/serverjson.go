package fromgo

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The registry's server.json (the MCP registry's description of a server:
// name, version, how to run or reach it), written from a declared package
// and the publisher's flags. The shape is the registry's
// (github.com/modelcontextprotocol/registry, docs/reference/server-json;
// schema 2025-12-11), checked against its published JSON Schema in tests
// (interop/registry).

// ServerSchemaURL is the server.json schema the file names.
const ServerSchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

// ServerOptions are what server.json says beyond the declarations.
type ServerOptions struct {
	// Name is the server's name in reverse-DNS form with one slash
	// ("io.github.user/weather"); Version its version (semver).
	Name, Version string
	// Title and Description describe it (Description defaults to the
	// package's doc synopsis; at most 100 characters).
	Title, Description string
	// Repository is the source repository's URL (its host names the
	// source: github.com → github); WebsiteURL the server's site.
	Repository, WebsiteURL string
	// Packages are how to install it, each "TYPE=IDENTIFIER[@VERSION]"
	// (TYPE: oci, npm, pypi, nuget, mcpb, cargo), run over stdio;
	// Remotes where it is served, each "streamable-http=URL" or "sse=URL".
	Packages, Remotes []string
	// Generator is the mcpgen version, recorded in the publisher's _meta.
	Generator string
	// ListRestricted lists the declarations restricted with visible= by
	// name in the publisher's _meta too. Off by default: the registry is
	// public, and those names are for the principals visible= admits.
	ListRestricted bool
}

// serverJSON is the registry's ServerDetail, in its member order.
type serverJSON struct {
	Schema      string         `json:"$schema"`
	Name        string         `json:"name"`
	Title       string         `json:"title,omitempty"`
	Description string         `json:"description"`
	Version     string         `json:"version"`
	WebsiteURL  string         `json:"websiteUrl,omitempty"`
	Repository  *sjRepository  `json:"repository,omitempty"`
	Packages    []sjPackage    `json:"packages,omitempty"`
	Remotes     []sjTransport  `json:"remotes,omitempty"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

type sjRepository struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

type sjPackage struct {
	RegistryType string      `json:"registryType"`
	Identifier   string      `json:"identifier"`
	Version      string      `json:"version,omitempty"`
	Transport    sjTransport `json:"transport"`
}

type sjTransport struct {
	Type string `json:"type"`
	URL  string `json:"url,omitempty"`
}

var (
	serverNameRE = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	versionRange = regexp.MustCompile(`[\^~><=*]|\.x\b`)
)

// maxDescription is the registry's bound on a description and a title,
// in characters.
const maxDescription = 100

// ServerJSON is the server.json of the declared package, described by o;
// the declarations are listed in the publisher's _meta, but for those
// restricted with visible= (unless o.ListRestricted). The warnings say
// what it changed: a default description (the package doc's synopsis)
// longer than the registry allows is shortened at a word; one given in
// o.Description is refused.
func (out *Output) ServerJSON(o ServerOptions) (data []byte, warnings []string, err error) {
	data, err = out.serverJSON(o, &warnings)
	return data, warnings, err
}

func (out *Output) serverJSON(o ServerOptions, warnings *[]string) ([]byte, error) {
	if !serverNameRE.MatchString(o.Name) || len(o.Name) > 200 {
		return nil, fmt.Errorf("server.json: name %q: want reverse-DNS with one slash, as io.github.user/weather (--server-name)", o.Name)
	}
	if o.Version == "" || versionRange.MatchString(o.Version) {
		return nil, fmt.Errorf("server.json: version %q: want one version, as 1.0.2, not a range (--server-version)", o.Version)
	}
	s := serverJSON{Schema: ServerSchemaURL, Name: o.Name, Title: o.Title, Description: o.Description, Version: o.Version, WebsiteURL: o.WebsiteURL}
	if s.Description == "" {
		s.Description = synopsis(out.Doc)
		if n := utf8.RuneCountInString(s.Description); n > maxDescription {
			s.Description = shorten(s.Description, maxDescription)
			*warnings = append(*warnings, fmt.Sprintf("server.json: the package doc's first sentence has %d characters, more than the registry's %d: the description is shortened to %q (give --server-description to choose it)", n, maxDescription, s.Description))
		}
	}
	if s.Description == "" {
		return nil, fmt.Errorf("server.json: no description: give --server-description, or a package doc comment")
	}
	if utf8.RuneCountInString(s.Description) > maxDescription {
		return nil, fmt.Errorf("server.json: the description has %d characters, at most %d are allowed: give a shorter --server-description", utf8.RuneCountInString(s.Description), maxDescription)
	}
	if utf8.RuneCountInString(s.Title) > 100 {
		return nil, fmt.Errorf("server.json: the title has more than 100 characters")
	}
	if o.Repository != "" {
		u, err := url.Parse(o.Repository)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("server.json: repository %q is not a URL", o.Repository)
		}
		source := strings.TrimSuffix(strings.TrimPrefix(u.Host, "www."), ".com")
		s.Repository = &sjRepository{URL: o.Repository, Source: source}
	}
	for _, p := range o.Packages {
		typ, id, ok := strings.Cut(p, "=")
		if !ok || id == "" {
			return nil, fmt.Errorf("server.json: package %q: want TYPE=IDENTIFIER[@VERSION]", p)
		}
		switch typ {
		case "oci", "npm", "pypi", "nuget", "mcpb", "cargo":
		default:
			return nil, fmt.Errorf("server.json: package %q: unknown registry type %q (want oci, npm, pypi, nuget, mcpb or cargo)", p, typ)
		}
		pk := sjPackage{RegistryType: typ, Identifier: id, Transport: sjTransport{Type: "stdio"}}
		if typ != "oci" && typ != "mcpb" {
			// An OCI image names its tag, an mcpb bundle is a URL: the
			// others carry the version apart.
			if i := strings.LastIndex(id, "@"); i > 0 {
				pk.Identifier, pk.Version = id[:i], id[i+1:]
			}
		}
		s.Packages = append(s.Packages, pk)
	}
	for _, r := range o.Remotes {
		typ, u, ok := strings.Cut(r, "=")
		if !ok || (typ != "streamable-http" && typ != "sse") {
			return nil, fmt.Errorf("server.json: remote %q: want streamable-http=URL or sse=URL", r)
		}
		if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
			return nil, fmt.Errorf("server.json: remote %q: the URL must start with https:// or http://", r)
		}
		s.Remotes = append(s.Remotes, sjTransport{Type: typ, URL: u})
	}
	if len(s.Packages) == 0 && len(s.Remotes) == 0 {
		return nil, fmt.Errorf("server.json: say how to run or reach the server: --server-package or --server-remote")
	}
	declared := map[string]any{}
	left := 0
	for _, k := range []struct {
		name  string
		names []string
	}{{"tools", out.ToolNames}, {"prompts", out.PromptNames}, {"resources", out.ResourceURIs}, {"resourceTemplates", out.TemplateURIs}} {
		names := k.names
		if !o.ListRestricted {
			names = nil
			for _, n := range k.names {
				if slices.Contains(out.Restricted[k.name], n) {
					left++
					continue
				}
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			declared[k.name] = names
		}
	}
	if left > 0 {
		what := "declarations"
		if left == 1 {
			what = "declaration"
		}
		*warnings = append(*warnings, fmt.Sprintf("server.json: %d %s restricted with visible= left out of the list of declarations (the registry is public; --server-list-restricted lists them)", left, what))
	}
	pub := map[string]any{"tool": "mcpgen"}
	if o.Generator != "" {
		pub["version"] = o.Generator
	}
	if len(declared) > 0 {
		pub["declared"] = declared
	}
	s.Meta = map[string]any{"io.modelcontextprotocol.registry/publisher-provided": pub}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// shorten cuts s to at most n characters at a word, ending it with "…".
func shorten(s string, n int) string {
	r := []rune(s)
	cut := string(r[:n-1])
	if i := strings.LastIndex(cut, " "); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.") + "…"
}

// synopsis is the first sentence of a doc comment, on one line.
func synopsis(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i+1]
	}
	return doc
}
