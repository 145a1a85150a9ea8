package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Options configure Load.
type Options struct {
	// Authority, when set, is the first segment of every skill's path
	// (skill://<Authority>/<dir>/SKILL.md), which occupies the URI's
	// authority; it must be an RFC 3986 reg-name. Without it the first
	// directory of each skill's path is the authority.
	Authority string
}

// Catalog is a set of skills loaded from a file system, with every file's
// digest and size computed once. It is immutable and safe for concurrent
// use.
type Catalog struct {
	entries []Entry
	byURI   map[string]int      // SKILL.md URI → entries index
	files   map[string]*Content // file URI → content
	dirs    map[string][]Resource
	listed  []Resource // one SKILL.md resource per skill
}

// Content is a skill file as resources/read serves it.
type Content struct {
	URI      string
	MIMEType string
	Data     []byte
}

// Text reports content served as text (valid UTF-8 of a text type) rather
// than as a base64 blob.
func (c *Content) Text() bool {
	return utf8.Valid(c.Data) && (strings.HasPrefix(c.MIMEType, "text/") || c.MIMEType == "application/json" ||
		strings.HasSuffix(c.MIMEType, "+json") || strings.HasSuffix(c.MIMEType, "+xml") || c.MIMEType == "application/yaml")
}

// Resource is a resource as resources/list and resources/directory/read
// list it.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        *int64 `json:"size,omitempty"`
}

// Load reads the skills of fsys: every directory holding a SKILL.md is a
// skill, and every file under it (nested directories included) is one of
// its files. Each skill's frontmatter must parse and carry a valid name
// equal to its directory's name, a description, and metadata of string
// values with no reserved key; its files may number at most MaxFiles and
// total at most MaxTotalSize. The first violation is the error, naming the
// skill.
func Load(fsys fs.FS, opts Options) (*Catalog, error) {
	if opts.Authority != "" && !isRegName(opts.Authority) {
		return nil, fmt.Errorf("skills: authority %q is not an RFC 3986 reg-name", opts.Authority)
	}
	var roots []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == Manifest {
			dir := path.Dir(p)
			for _, r := range roots {
				if dir == r || r == "." || strings.HasPrefix(dir, r+"/") {
					return fmt.Errorf("skills: %s: a skill inside skill %s", dir, r)
				}
			}
			roots = append(roots, dir)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("skills: reading the skills: %w", err)
	}
	c := &Catalog{byURI: map[string]int{}, files: map[string]*Content{}, dirs: map[string][]Resource{}}
	for _, dir := range roots {
		if err := c.add(fsys, dir, opts); err != nil {
			return nil, err
		}
	}
	sort.Slice(c.entries, func(i, j int) bool { return c.entries[i].URI < c.entries[j].URI })
	for i, e := range c.entries {
		c.byURI[e.URI] = i
		size := e.Resources[0].Size
		c.listed = append(c.listed, Resource{URI: e.URI, Name: e.Frontmatter.Name(), Description: e.Frontmatter.Description(),
			MIMEType: ManifestMIMEType, Size: &size})
	}
	for _, children := range c.dirs {
		sort.Slice(children, func(i, j int) bool { return children[i].URI < children[j].URI })
	}
	return c, nil
}

// add loads the skill at dir.
func (c *Catalog) add(fsys fs.FS, dir string, opts Options) error {
	if dir == "." {
		return errors.New("skills: SKILL.md at the root: a skill is a directory named after it")
	}
	name := path.Base(dir)
	segs := strings.Split(dir, "/")
	if opts.Authority != "" {
		segs = append([]string{opts.Authority}, segs...)
	} else if !isRegName(url.PathEscape(segs[0])) {
		return fmt.Errorf("skills: %s: %q cannot be a URI authority", dir, segs[0])
	}
	for i, s := range segs {
		if i > 0 || opts.Authority == "" {
			segs[i] = url.PathEscape(s)
		}
	}
	base := Scheme + "://" + strings.Join(segs, "/")
	uri := base + "/" + Manifest
	fail := func(format string, args ...any) error {
		return fmt.Errorf("skills: skill %s: %s", dir, fmt.Sprintf(format, args...))
	}
	if !ValidName(name) {
		return fail("%q is not a valid skill name (1-64 lowercase letters, digits and single hyphens, not at either end)", name)
	}
	manifest, err := fs.ReadFile(fsys, path.Join(dir, Manifest))
	if err != nil {
		return fail("%v", err)
	}
	fm, err := ParseFrontmatter(manifest)
	if err != nil {
		return fail("%v", err)
	}
	if err := checkFrontmatter(fm, name); err != nil {
		return fail("%v", err)
	}
	e := Entry{URI: uri, Frontmatter: fm, Resources: []File{{URI: uri, Digest: Digest(manifest), Size: int64(len(manifest))}}}
	c.files[uri] = &Content{URI: uri, MIMEType: ManifestMIMEType, Data: manifest}
	total := int64(len(manifest))
	c.dirs[base] = nil
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel := strings.TrimPrefix(p, dir+"/")
		u := base + "/" + escapePath(rel)
		parent := base
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			parent = base + "/" + escapePath(rel[:i])
		}
		if d.IsDir() {
			c.dirs[u] = []Resource{}
			c.dirs[parent] = append(c.dirs[parent], Resource{URI: u, Name: d.Name(), MIMEType: DirectoryMIMEType})
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		var data []byte
		if rel == Manifest {
			data = manifest
		} else {
			if data, err = fs.ReadFile(fsys, p); err != nil {
				return err
			}
			e.Resources = append(e.Resources, File{URI: u, Digest: Digest(data), Size: int64(len(data))})
			c.files[u] = &Content{URI: u, MIMEType: mimeType(rel), Data: data}
			total += int64(len(data))
		}
		size := int64(len(data))
		mt := c.files[u].MIMEType
		c.dirs[parent] = append(c.dirs[parent], Resource{URI: u, Name: d.Name(), MIMEType: mt, Size: &size})
		if len(e.Resources) > MaxFiles {
			return fmt.Errorf("more than %d files", MaxFiles)
		}
		if total > MaxTotalSize {
			return fmt.Errorf("its files total more than %d bytes", MaxTotalSize)
		}
		return nil
	})
	if err != nil {
		return fail("%v", err)
	}
	c.entries = append(c.entries, e)
	return nil
}

// checkFrontmatter applies the Agent Skills rules the extension relies on.
func checkFrontmatter(fm Frontmatter, dirName string) error {
	name, ok := fm["name"].(string)
	if !ok || name == "" {
		return errors.New("frontmatter has no name")
	}
	if name != dirName {
		return fmt.Errorf("frontmatter name %q differs from the directory name %q (the last segment of the skill's URI)", name, dirName)
	}
	desc, ok := fm["description"].(string)
	if !ok || strings.TrimSpace(desc) == "" {
		return errors.New("frontmatter has no description")
	}
	if utf8.RuneCountInString(desc) > MaxDescription {
		return fmt.Errorf("description is longer than %d characters", MaxDescription)
	}
	if md, present := fm["metadata"]; present {
		m, ok := md.(map[string]any)
		if !ok {
			return errors.New("frontmatter metadata is not a mapping")
		}
		for k, v := range m {
			if strings.HasPrefix(k, ReservedMetadataPrefix) {
				return fmt.Errorf("metadata key %q uses the reserved prefix %s", k, ReservedMetadataPrefix)
			}
			if _, ok := v.(string); !ok {
				return fmt.Errorf("metadata %q is not a string", k)
			}
		}
	}
	return nil
}

// escapePath percent-encodes each segment of a slash-separated path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// mimeType guesses a file's MIME type from its extension.
func mimeType(name string) string {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".md", ".markdown":
		return "text/markdown"
	case ".txt", "":
		return "text/plain"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			t, _, _ = strings.Cut(t, ";")
			return t
		}
	}
	return "application/octet-stream"
}

// Entries returns the skills' entries, ordered by URI. The slice is the
// caller's; the entries' contents must not be modified.
func (c *Catalog) Entries() []Entry { return slices.Clone(c.entries) }

// Skill returns the entry whose URI is uri.
func (c *Catalog) Skill(uri string) (Entry, bool) {
	i, ok := c.byURI[uri]
	if !ok {
		return Entry{}, false
	}
	return c.entries[i], true
}

// Read returns the file at uri. The content must not be modified.
func (c *Catalog) Read(uri string) (*Content, bool) {
	f, ok := c.files[uri]
	return f, ok
}

// ReadDir returns the direct children of the directory at uri — a
// skill's root (its SKILL.md URI without /SKILL.md) or a directory in it —
// ordered by URI, subdirectories with DirectoryMIMEType.
func (c *Catalog) ReadDir(uri string) ([]Resource, bool) {
	d, ok := c.dirs[strings.TrimSuffix(uri, "/")]
	if !ok {
		return nil, false
	}
	return slices.Clone(d), true
}

// Resources returns the SKILL.md of every skill as a resource to list,
// named and described by its frontmatter.
func (c *Catalog) Resources() []Resource { return slices.Clone(c.listed) }
