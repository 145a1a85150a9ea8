// Package skills implements the content side of the MCP skills extension
// (io.modelcontextprotocol/skills, SEP-2640): a server offers skills —
// directories holding a SKILL.md with YAML frontmatter and any supporting
// files — and clients discover them with skills/list and skills/get and
// read their files through resources/read.
//
// A server loads a Catalog from an fs.FS once (Load): every file's
// sha256 digest and size are computed then, and every skill is checked
// against the extension's rules (names, URIs, limits). Package mcp serves
// a Catalog (ServerOptions.Skills). A client holds the Entry of a skill
// and verifies every file it reads against it (Entry.Verify,
// Entry.VerifyManifest) before using the content; package mcp's client
// helpers do that for it.
//
// The package knows nothing of JSON-RPC; it depends on no other runtime
// package but wire.
package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// Extension identifies the skills extension.
const Extension = "io.modelcontextprotocol/skills"

// The extension's names and limits.
const (
	// Scheme is the URI scheme of skill resources.
	Scheme = "skill"
	// Manifest is the file every skill holds at its root.
	Manifest = "SKILL.md"
	// ManifestMIMEType is the MIME type of a SKILL.md.
	ManifestMIMEType = "text/markdown"
	// DirectoryMIMEType marks directories in resources/directory/read.
	DirectoryMIMEType = "inode/directory"
	// Dynamic is the resources value of an entry that publishes no file
	// manifest.
	Dynamic = "dynamic"
	// MaxFiles bounds the files of one skill, SKILL.md included.
	MaxFiles = 512
	// MaxTotalSize bounds the summed size of one skill's files (16 MiB).
	MaxTotalSize = 16 << 20
	// ReservedMetadataPrefix starts the frontmatter metadata keys reserved
	// for MCP extensions; this extension defines none.
	ReservedMetadataPrefix = "io.modelcontextprotocol/"
	// MaxDescription bounds a skill's description (Agent Skills).
	MaxDescription = 1024
)

// File is one file of a skill's manifest: its URI, the sha256 of its raw
// bytes ("sha256:<64 lowercase hex>") and its length in bytes.
type File struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Entry describes one skill, as skills/list and skills/get return it.
type Entry struct {
	// URI is the skill's SKILL.md: skill://<skill-path>/SKILL.md, whose
	// last path segment before SKILL.md is the skill's name.
	URI string
	// Frontmatter is SKILL.md's frontmatter.
	Frontmatter Frontmatter
	// Resources lists every file of the skill, SKILL.md first; nil when
	// Dynamic.
	Resources []File
	// Dynamic reports an entry whose files are not listed ("resources":
	// "dynamic"): nothing read from it can be verified.
	Dynamic bool
}

type entryJSON struct {
	URI         string          `json:"uri"`
	Frontmatter Frontmatter     `json:"frontmatter"`
	Resources   json.RawMessage `json:"resources"`
}

// MarshalJSON encodes the entry as {uri, frontmatter, resources}.
func (e Entry) MarshalJSON() ([]byte, error) {
	res, err := json.Marshal(e.Resources)
	switch {
	case e.Dynamic:
		res, err = []byte(`"`+Dynamic+`"`), nil
	case e.Resources == nil:
		res = []byte("[]")
	}
	if err != nil {
		return nil, err
	}
	fm := e.Frontmatter
	if fm == nil {
		fm = Frontmatter{}
	}
	return json.Marshal(entryJSON{URI: e.URI, Frontmatter: fm, Resources: res})
}

// UnmarshalJSON decodes an entry, checking its required members.
func (e *Entry) UnmarshalJSON(b []byte) error {
	var j entryJSON
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.UseNumber()
	if err := d.Decode(&j); err != nil {
		return fmt.Errorf("skills: entry: %w", err)
	}
	if j.URI == "" {
		return errors.New("skills: entry: no uri")
	}
	if j.Frontmatter == nil {
		return fmt.Errorf("skills: entry %s: no frontmatter object", j.URI)
	}
	*e = Entry{URI: j.URI, Frontmatter: j.Frontmatter}
	var dyn string
	if err := json.Unmarshal(j.Resources, &dyn); err == nil {
		if dyn != Dynamic {
			return fmt.Errorf("skills: entry %s: resources is %q, neither an array nor %q", j.URI, dyn, Dynamic)
		}
		e.Dynamic = true
		return nil
	}
	if err := json.Unmarshal(j.Resources, &e.Resources); err != nil || e.Resources == nil {
		return fmt.Errorf("skills: entry %s: resources is neither an array of {uri, digest, size} nor %q", j.URI, Dynamic)
	}
	return nil
}

// Name returns the skill's name: the URI's segment before /SKILL.md.
func (e Entry) Name() string {
	dir, ok := strings.CutSuffix(e.URI, "/"+Manifest)
	if !ok {
		return ""
	}
	return dir[strings.LastIndexByte(dir, '/')+1:]
}

// File returns the manifest's file uri.
func (e Entry) File(uri string) (File, bool) {
	for _, f := range e.Resources {
		if f.URI == uri {
			return f, true
		}
	}
	return File{}, false
}

// The verification failures (wrapped with the file's URI).
var (
	ErrDynamic             = errors.New("the skill publishes no file manifest (resources: \"dynamic\"), so its files cannot be verified")
	ErrNotInManifest       = errors.New("the file is not in the skill's manifest")
	ErrSizeMismatch        = errors.New("size mismatch")
	ErrDigestMismatch      = errors.New("digest mismatch")
	ErrFrontmatterMismatch = errors.New("SKILL.md frontmatter differs from the skill entry's")
)

// Verify checks data, read from uri, against the entry's manifest: the
// size first (a mismatch fails whether or not the digest would), then
// the sha256 digest. Content that fails must not be used.
func (e Entry) Verify(uri string, data []byte) error {
	if e.Dynamic {
		return fmt.Errorf("skills: %s: %w", uri, ErrDynamic)
	}
	f, ok := e.File(uri)
	if !ok {
		return fmt.Errorf("skills: %s: %w", uri, ErrNotInManifest)
	}
	if int64(len(data)) != f.Size {
		return fmt.Errorf("skills: %s: %w: read %d bytes, the manifest says %d", uri, ErrSizeMismatch, len(data), f.Size)
	}
	if got := Digest(data); got != f.Digest {
		return fmt.Errorf("skills: %s: %w: read %s, the manifest says %s", uri, ErrDigestMismatch, got, f.Digest)
	}
	return nil
}

// VerifyManifest checks a SKILL.md read from the entry's URI: Verify,
// then its frontmatter, which must equal the entry's field by field. It
// returns the file's frontmatter.
func (e Entry) VerifyManifest(data []byte) (Frontmatter, error) {
	if err := e.Verify(e.URI, data); err != nil {
		return nil, err
	}
	fm, err := ParseFrontmatter(data)
	if err != nil {
		return nil, fmt.Errorf("skills: %s: %w", e.URI, err)
	}
	if !fm.Equal(e.Frontmatter) {
		var diff []string
		for _, k := range unionKeys(fm, e.Frontmatter) {
			if !(Frontmatter{k: fm[k]}).Equal(Frontmatter{k: e.Frontmatter[k]}) {
				diff = append(diff, k)
			}
		}
		return nil, fmt.Errorf("skills: %s: %w (%s)", e.URI, ErrFrontmatterMismatch, strings.Join(diff, ", "))
	}
	return fm, nil
}

func unionKeys(a, b Frontmatter) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []Frontmatter{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// Digest returns the manifest digest of data: "sha256:<hex>".
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ValidName reports whether name follows the Agent Skills naming rule:
// 1-64 characters, lowercase alphanumerics and hyphens, no leading,
// trailing or doubled hyphen. (Checked by hand, not by a regular
// expression: package regexp would add 0.1 MB to every server.)
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && name[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// isRegName reports whether s is an RFC 3986 reg-name (the URI authority):
// one or more unreserved characters, sub-delims or percent-encodings.
func isRegName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func jsonEqual(a, b []byte) (bool, error) { return wire.Equal(a, b) }
