package skills

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParseFrontmatter(t *testing.T) {
	tests := []struct {
		name, doc, want string // want: the frontmatter as JSON
	}{
		{"flat", "---\nname: a\ndescription: Does a.\n---\nbody", `{"name":"a","description":"Does a."}`},
		{"crlf and bom", "\uFEFF---\r\nname: a\r\ndescription: x\r\n---\r\n", `{"name":"a","description":"x"}`},
		{"closing at end", "---\nname: a\n---", `{"name":"a"}`},
		{"quoted", "---\nname: 'it''s'\ndescription: \"tab\\tnew\\nline \\u00e9 \\\"q\\\"\"\n---\n", `{"name":"it's","description":"tab\tnew\nline é \"q\""}`},
		{"comments", "---\n# top\nname: a # trailing\ndescription: 'b' # after quotes\nurl: x#y\n---\n", `{"name":"a","description":"b","url":"x#y"}`},
		{"metadata", "---\nname: a\nmetadata:\n  author: me\n  version: \"1.0\"\n---\n", `{"name":"a","metadata":{"author":"me","version":"1.0"}}`},
		{"core schema", "---\nn: 12\nf: 1.5\ne: 1e3\nh: 0x1F\no: 0o17\nt: true\nF: False\nz: null\nt2: ~\nempty:\ns: 1.0.0\n---\n", `{"n":12,"f":1.5,"e":1000,"h":31,"o":15,"t":true,"F":false,"z":null,"t2":null,"empty":null,"s":"1.0.0"}`},
		{"literal block", "---\nd: |\n  one\n    two\n\n  three\n---\n", `{"d":"one\n  two\n\nthree\n"}`},
		{"folded strip", "---\nd: >-\n  Write the notes\n  from the commits.\n\n  Second.\nnext: x\n---\n", `{"d":"Write the notes from the commits.\nSecond.","next":"x"}`},
		{"literal keep", "---\nd: |+\n  a\n\n---\n", `{"d":"a\n\n"}`},
		{"block indicator", "---\nd: |2\n    indented\n---\n", `{"d":"  indented\n"}`},
		{"multi-line plain", "---\ndescription: Use this skill\n  when reviewing\n\n  code.\nname: a\n---\n", `{"description":"Use this skill when reviewing\ncode.","name":"a"}`},
		{"multi-line quoted", "---\nd: \"one\n  two\"\n---\n", `{"d":"one two"}`},
		{"sequences", "---\ntools:\n  - read\n  - 'write'\nsame:\n- a\n- b\nflow: [x, \"y\", 3]\nnone: []\nobj: {}\n---\n", `{"tools":["read","write"],"same":["a","b"],"flow":["x","y",3],"none":[],"obj":{}}`},
		{"sequence of mappings", "---\nitems:\n  - name: a\n    size: 1\n  - name: b\n---\n", `{"items":[{"name":"a","size":1},{"name":"b"}]}`},
		{"nested", "---\na:\n  b:\n    c: d\n  e: f\n---\n", `{"a":{"b":{"c":"d"},"e":"f"}}`},
		{"quoted key", "---\n\"odd key\": v\n---\n", `{"odd key":"v"}`},
		{"empty", "---\n\n---\n", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, err := ParseFrontmatter([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(fm)
			if eq, err := jsonEqual(got, []byte(tt.want)); err != nil || !eq {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseFrontmatterErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"no block", "# Title\n", "does not begin"},
		{"unclosed", "---\nname: a\n", "does not begin"},
		{"duplicate", "---\na: 1\na: 2\n---\n", "duplicate key"},
		{"anchor", "---\na: &x 1\n---\n", "unsupported"},
		{"alias", "---\na: *x\n---\n", "unsupported"},
		{"tag", "---\na: !!str 1\n---\n", "unsupported"},
		{"colon in plain", "---\ndescription: Use for: things\n---\n", "': '"},
		{"bad indent", "---\na: 1\n  b: 2\n---\n", "': '"}, {"deeper key", "---\na:\n  b: 1\n    c: 2\n---\n", "': '"}, {"shallower key", "---\na:\n    b: 1\n  c: 2\n---\n", "indentation"},
		{"tab indent", "---\na:\n\tb: 2\n---\n", ""},
		{"top-level list", "---\n- a\n---\n", "sequence"},
		{"unterminated quote", "---\na: \"x\n---\n", "unterminated"},
		{"bad escape", "---\na: \"\\q\"\n---\n", "escape"},
		{"flow mapping", "---\na: {b: c}\n---\n", "flow mappings"},
		{"not a key", "---\njust text\n---\n", "key: value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFrontmatter([]byte(tt.doc))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func skillMD(name, desc, extra string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---\nname: " + name + "\ndescription: " + desc + "\n" + extra + "---\n\n# " + name + "\n")}
}

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"b-skill/SKILL.md":           skillMD("b-skill", "Does b.", "metadata:\n  author: me\n"),
		"b-skill/refs/GUIDE.md":      {Data: []byte("guide\n")},
		"b-skill/refs/deep/data.bin": {Data: []byte{0xff, 0x00}},
		"team/a-skill/SKILL.md":      skillMD("a-skill", "Does a.", ""),
		"team/a-skill/my notes.txt":  {Data: []byte("notes")},
		"unrelated/README.md":        {Data: []byte("not a skill")},
	}
	c, err := Load(fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	es := c.Entries()
	if len(es) != 2 || es[0].URI != "skill://b-skill/SKILL.md" || es[1].URI != "skill://team/a-skill/SKILL.md" {
		t.Fatalf("entries %+v", es)
	}
	b := es[0]
	if b.Name() != "b-skill" || b.Frontmatter.Description() != "Does b." || len(b.Resources) != 3 || b.Resources[0].URI != b.URI {
		t.Fatalf("entry %+v", b)
	}
	for _, f := range b.Resources {
		ct, ok := c.Read(f.URI)
		if !ok || f.Digest != Digest(ct.Data) || f.Size != int64(len(ct.Data)) || b.Verify(f.URI, ct.Data) != nil {
			t.Errorf("file %+v does not match its content", f)
		}
	}
	if ct, _ := c.Read("skill://b-skill/refs/deep/data.bin"); ct.Text() || ct.MIMEType != "application/octet-stream" {
		t.Errorf("binary file served as %+v", ct)
	}
	if _, ok := c.Read("skill://team/a-skill/my%20notes.txt"); !ok {
		t.Error("escaped file name not served")
	}
	root, ok := c.ReadDir("skill://b-skill")
	if !ok || len(root) != 2 || root[0].URI != "skill://b-skill/SKILL.md" || root[1].MIMEType != DirectoryMIMEType || root[1].URI != "skill://b-skill/refs" {
		t.Fatalf("ReadDir(root) = %+v", root)
	}
	if sub, ok := c.ReadDir("skill://b-skill/refs/"); !ok || len(sub) != 2 {
		t.Fatalf("ReadDir(refs) = %+v", sub)
	}
	if _, ok := c.ReadDir("skill://b-skill/SKILL.md"); ok {
		t.Error("a file read as a directory")
	}
	if e, ok := c.Skill("skill://team/a-skill/SKILL.md"); !ok || e.Name() != "a-skill" {
		t.Error("Skill by URI")
	}
	if rs := c.Resources(); len(rs) != 2 || rs[0].Name != "b-skill" || rs[0].Description != "Does b." || rs[0].MIMEType != ManifestMIMEType {
		t.Errorf("Resources() = %+v", rs)
	}
	withAuth, err := Load(fsys, Options{Authority: "example.com"})
	if err != nil || withAuth.Entries()[0].URI != "skill://example.com/b-skill/SKILL.md" {
		t.Fatalf("authority: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	many := fstest.MapFS{"s/SKILL.md": skillMD("s", "d", "")}
	for i := range MaxFiles {
		many["s/f"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+json.Number(rune('0'+i/26%10)).String()+"/"+strings.Repeat("y", i/260+1)] = &fstest.MapFile{Data: []byte("x")}
	}
	tests := []struct {
		name string
		fsys fstest.MapFS
		opts Options
		want string
	}{
		{"bad name", fstest.MapFS{"Bad_Name/SKILL.md": skillMD("Bad_Name", "d", "")}, Options{}, "not a valid skill name"},
		{"double hyphen", fstest.MapFS{"a--b/SKILL.md": skillMD("a--b", "d", "")}, Options{}, "not a valid skill name"},
		{"name differs", fstest.MapFS{"a/SKILL.md": skillMD("b", "d", "")}, Options{}, "differs from the directory name"},
		{"no description", fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\n---\n")}}, Options{}, "no description"},
		{"long description", fstest.MapFS{"a/SKILL.md": skillMD("a", strings.Repeat("x", MaxDescription+1), "")}, Options{}, "longer than"},
		{"reserved metadata", fstest.MapFS{"a/SKILL.md": skillMD("a", "d", "metadata:\n  io.modelcontextprotocol/x: y\n")}, Options{}, "reserved prefix"},
		{"metadata not strings", fstest.MapFS{"a/SKILL.md": skillMD("a", "d", "metadata:\n  n: 1\n")}, Options{}, "not a string"},
		{"metadata not a map", fstest.MapFS{"a/SKILL.md": skillMD("a", "d", "metadata: x\n")}, Options{}, "not a mapping"},
		{"bad yaml", fstest.MapFS{"a/SKILL.md": {Data: []byte("---\nname: a\nname: a\n---\n")}}, Options{}, "duplicate key"},
		{"nested skill", fstest.MapFS{"a/SKILL.md": skillMD("a", "d", ""), "a/b/SKILL.md": skillMD("b", "d", "")}, Options{}, "inside skill"},
		{"root skill", fstest.MapFS{"SKILL.md": skillMD("a", "d", "")}, Options{}, "at the root"},
		{"bad authority", fstest.MapFS{"a/SKILL.md": skillMD("a", "d", "")}, Options{Authority: "a b"}, "reg-name"},
		{"too large", fstest.MapFS{"a/SKILL.md": skillMD("a", "d", ""), "a/big": {Data: make([]byte, MaxTotalSize)}}, Options{}, "total more than"},
		{"too many files", many, Options{}, "more than 512 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.fsys, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestVerify(t *testing.T) {
	doc := []byte("---\nname: pdf\ndescription: PDFs\n---\nbody\n")
	other := []byte("supporting\n")
	entry := Entry{URI: "skill://pdf/SKILL.md", Frontmatter: Frontmatter{"name": "pdf", "description": "PDFs"},
		Resources: []File{{URI: "skill://pdf/SKILL.md", Digest: Digest(doc), Size: int64(len(doc))}, {URI: "skill://pdf/x.md", Digest: Digest(other), Size: int64(len(other))}}}
	tampered := []byte(strings.Replace(string(doc), "PDFs", "Evil", 1))
	retargeted := entry
	retargeted.Resources = []File{{URI: entry.URI, Digest: Digest(tampered), Size: int64(len(tampered))}}
	tests := []struct {
		name  string
		entry Entry
		uri   string
		data  []byte
		want  error
	}{
		{"manifest ok", entry, entry.URI, doc, nil},
		{"file ok", entry, "skill://pdf/x.md", other, nil},
		{"size", entry, "skill://pdf/x.md", append(other, '!'), ErrSizeMismatch},
		{"digest", entry, "skill://pdf/x.md", []byte("Supporting\n"), ErrDigestMismatch},
		{"not listed", entry, "skill://pdf/y.md", other, ErrNotInManifest},
		{"dynamic", Entry{URI: entry.URI, Dynamic: true}, entry.URI, doc, ErrDynamic},
		{"frontmatter", retargeted, entry.URI, tampered, ErrFrontmatterMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.uri == tt.entry.URI {
				_, err = tt.entry.VerifyManifest(tt.data)
			} else {
				err = tt.entry.Verify(tt.uri, tt.data)
			}
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestEntryJSON(t *testing.T) {
	tests := []struct {
		name, in string
		dynamic  bool
		files    int
		wantErr  string
	}{
		{"files", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","n":1},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:00","size":3}]}`, false, 1, ""},
		{"dynamic", `{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":"dynamic"}`, true, 0, ""},
		{"other string", `{"uri":"skill://a/SKILL.md","frontmatter":{},"resources":"all"}`, false, 0, "neither"},
		{"no resources", `{"uri":"skill://a/SKILL.md","frontmatter":{}}`, false, 0, "neither"},
		{"no uri", `{"frontmatter":{},"resources":[]}`, false, 0, "no uri"},
		{"no frontmatter", `{"uri":"skill://a/SKILL.md","resources":[]}`, false, 0, "no frontmatter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var e Entry
			err := json.Unmarshal([]byte(tt.in), &e)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || e.Dynamic != tt.dynamic || len(e.Resources) != tt.files {
				t.Fatalf("%+v, %v", e, err)
			}
			out, err := json.Marshal(e)
			if eq, _ := jsonEqual(out, []byte(tt.in)); err != nil || !eq {
				t.Fatalf("round trip: %s", out)
			}
		})
	}
}

func FuzzParseFrontmatter(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: b\n---\n",
		"---\nmetadata:\n  k: v\nlist:\n  - x\n  - y: z\n---\n",
		"---\nd: >-\n  a\n  b\n\n   c\nq: \"\\u00e9\\x41\"\ns: 'it''s'\n---\n",
		"---\nd: |+2\n    x\n\n---\n",
		"---\nn: [1, 'a', 0x10]\n---\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		fm, err := ParseFrontmatter(doc)
		if err != nil {
			return
		}
		// Whatever parses is a JSON object that survives a round trip.
		b, err := json.Marshal(fm)
		if err != nil {
			t.Fatalf("marshal %#v: %v", fm, err)
		}
		var back Frontmatter
		if err := json.Unmarshal(b, &back); err != nil || !back.Equal(fm) {
			t.Fatalf("round trip of %s: %v", b, err)
		}
	})
}
