package skills_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/mcp"
	"github.com/mcpgen/mcpgen/runtime/protocol"
	"github.com/mcpgen/mcpgen/runtime/protocol/protocoltest"
	"github.com/mcpgen/mcpgen/runtime/skills"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

const meta = protocoltest.Meta

// serveStateless serves a request of method with params statelessly.
func serveStateless(ctx context.Context, s *mcp.Server, method, params string) (wire.Marshaler, error) {
	x := s.Accept(protocoltest.Request(method, params), mcp.Via{})
	return x.Serve(ctx, nil, discard{})
}

type discard struct{}

func (discard) Notify(context.Context, string, wire.Marshaler) error { return nil }

func encode(t *testing.T, m wire.Marshaler) string {
	t.Helper()
	b, err := wire.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newSkillServer serves a two-skill catalog on the test revisions, with a
// handler that lists one resource of its own.
func newSkillServer(t *testing.T) (*mcp.Server, *skills.Catalog) {
	t.Helper()
	cat, err := skills.Load(fstest.MapFS{
		"alpha/SKILL.md":         {Data: []byte("---\nname: alpha\ndescription: First.\n---\nbody\n")},
		"alpha/refs/NOTES.md":    {Data: []byte("notes\n")},
		"beta/SKILL.md":          {Data: []byte("---\nname: beta\ndescription: Second.\n---\n")},
		"beta/assets/logo.bin":   {Data: []byte{0xff, 0xfe}},
		"beta/assets/readme.txt": {Data: []byte("hi")},
	}, skills.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := protocoltest.Revisions(func(context.Context, any, wire.Raw) (wire.Marshaler, error) { return wire.Raw(`{}`), nil })
	b.Methods["resources/list"] = &protocol.Method{Name: "resources/list", FromClient: true, Implemented: protocoltest.Always, ValidateParams: protocol.NoParams, Cacheable: true, Role: protocol.RoleResourcesList,
		Serve: func(context.Context, any, wire.Raw) (wire.Marshaler, error) {
			return ownList{}, nil
		}}
	// The revision stamps its typed results, as a generated one does: the
	// handler's list leaves the engine unstamped, and the feature that
	// appends to it must stamp it.
	b.Stamp = func(res wire.Marshaler, st *protocol.Stamp) wire.Marshaler {
		if _, ok := res.(ownList); ok {
			return ownList{stamp: st}
		}
		return res
	}
	s, err := mcp.NewServer(mcp.ServerOptions{Name: "test", Version: "1", Features: []mcp.Feature{skills.Feature(cat, skills.ServeOptions{PageSize: 1, DirectoryRead: true})}},
		mcp.Mount{Protocol: a, Handler: struct{}{}}, mcp.Mount{Protocol: b, Handler: struct{}{}})
	if err != nil {
		t.Fatal(err)
	}
	return s, cat
}

// ownList is the handler's resources/list result, stamped or not.
type ownList struct{ stamp *protocol.Stamp }

func (l ownList) EncodeJSON(e *wire.Encoder) {
	e.ObjectStart()
	e.FieldRaw(`"resources":`)
	e.Raw(wire.Raw(`[{"uri":"test://own","name":"own"}]`))
	mcp.WriteStamp(e, l.stamp)
	e.ObjectEnd()
}

func TestSkillsStateless(t *testing.T) {
	s, _ := newSkillServer(t)
	tests := []struct {
		name, method, params string
		code                 int64
		want                 []string // substrings of the result or error
	}{
		{"declared", "server/discover", `{` + meta + `}}`, 0, []string{`"io.modelcontextprotocol/skills":{"directoryRead":true}`, `"resources":{`}},
		{"first page", "skills/list", `{` + meta + `}}`, 0, []string{`"skills":[{"uri":"skill://alpha/SKILL.md"`, `"nextCursor":`, `"ttlMs":0`, `"cacheScope":"private"`, `"resultType":"complete"`}},
		{"bad cursor", "skills/list", `{` + meta + `},"cursor":"nope"}`, jsonrpc.CodeInvalidParams, []string{"cursor"}},
		{"get", "skills/get", `{` + meta + `},"uri":"skill://beta/SKILL.md"}`, 0, []string{`"skill":{"uri":"skill://beta/SKILL.md","frontmatter":{"description":"Second.","name":"beta"},"resources":[`, `"ttlMs":0`}},
		{"get unknown", "skills/get", `{` + meta + `},"uri":"skill://nope/SKILL.md"}`, jsonrpc.CodeInvalidParams, []string{"no skill"}},
		{"get without uri", "skills/get", `{` + meta + `}}`, jsonrpc.CodeInvalidParams, []string{"/params/uri"}},
		{"read manifest", "resources/read", `{` + meta + `},"uri":"skill://alpha/SKILL.md"}`, 0, []string{`"mimeType":"text/markdown"`, `"text":"---\nname: alpha`}},
		{"read binary", "resources/read", `{` + meta + `},"uri":"skill://beta/assets/logo.bin"}`, 0, []string{`"blob":"//4="`}},
		{"directory", "resources/directory/read", `{` + meta + `},"uri":"skill://alpha"}`, 0, []string{`"uri":"skill://alpha/SKILL.md"`, `"nextCursor"`}},
		{"subdirectory on page 2", "resources/directory/read", `{` + meta + `},"uri":"skill://beta","cursor":"cDE6MQ"}`, 0, []string{`"mimeType":"inode/directory"`}},
		{"not a directory", "resources/directory/read", `{` + meta + `},"uri":"skill://alpha/SKILL.md"}`, jsonrpc.CodeInvalidParams, []string{"not a directory"}},
		{"resources listed", "resources/list", `{` + meta + `}}`, 0, []string{`{"uri":"test://own","name":"own"},{"uri":"skill://alpha/SKILL.md","name":"alpha","description":"First.","mimeType":"text/markdown","size":`, `"resultType":"complete"`, `"cacheScope":"private"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := serveStateless(context.Background(), s, tt.method, tt.params)
			got := ""
			if tt.code != 0 {
				var je *jsonrpc.Error
				if !errors.As(err, &je) || je.Code != tt.code {
					t.Fatalf("err = %v, want code %d", err, tt.code)
				}
				got = je.Message + string(je.Data)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				got = encode(t, res)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s lacks %s", got, w)
				}
			}
		})
	}
	// Stateful sessions know nothing of skills.
	sess := s.NewSession(nil, nil)
	defer sess.Close()
	x := s.Accept(protocoltest.Request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`), mcp.Via{Session: true})
	res, err := x.Serve(context.Background(), sess, discard{})
	if err != nil || strings.Contains(encode(t, res), "skills") {
		t.Errorf("initialize of a stateful session: %v %s; want no skills", err, encode(t, res))
	}
}

// statelessCaller serves its calls statelessly on a server, as a stateless
// client would, counting resources/read calls; tamper rewrites read
// results.
type statelessCaller struct {
	s      *mcp.Server
	reads  []string
	tamper func(uri string, res []byte) []byte
}

func (c *statelessCaller) Call(ctx context.Context, method string, params wire.Marshaler, result wire.Unmarshaler) error {
	return c.CallInto(ctx, method, params, wire.To(result))
}

func (c *statelessCaller) CallInto(ctx context.Context, method string, params wire.Marshaler, result wire.Into) error {
	p, err := wire.Marshal(params)
	if err != nil {
		return err
	}
	body := strings.TrimPrefix(string(p), "{")
	if body != "}" {
		body = "," + body
	} else {
		body = "}"
	}
	full := `{` + meta + `}` + body
	if method == "resources/read" {
		c.reads = append(c.reads, uriOf(p))
	}
	res, err := serveStateless(ctx, c.s, method, full)
	if err != nil {
		return err
	}
	b, err := wire.Marshal(res)
	if err != nil {
		return err
	}
	if c.tamper != nil && method == "resources/read" {
		b = c.tamper(uriOf(p), b)
	}
	return wire.UnmarshalWith(b, result.Decode)
}

func (c *statelessCaller) Notify(context.Context, string, wire.Marshaler) error { return nil }

func TestSkillsClient(t *testing.T) {
	s, cat := newSkillServer(t)
	ctx := context.Background()
	c := &statelessCaller{s: s}
	entries, err := skills.List(ctx, c)
	if err != nil || len(entries) != 2 || entries[1].URI != "skill://beta/SKILL.md" {
		t.Fatalf("ListSkills = %+v, %v", entries, err)
	}
	if len(c.reads) != 0 {
		t.Fatalf("listing read files: %v", c.reads)
	}
	got, err := skills.Get(ctx, c, "skill://alpha/SKILL.md")
	if err != nil || got.Name() != "alpha" {
		t.Fatalf("GetSkill = %+v, %v", got, err)
	}
	body, err := skills.Read(ctx, c, entries[0])
	want, _ := cat.Read("skill://alpha/SKILL.md")
	if err != nil || string(body) != string(want.Data) {
		t.Fatalf("LoadSkill = %q, %v", body, err)
	}
	for _, f := range entries[1].Resources {
		if _, err := skills.ReadFile(ctx, c, entries[1], f.URI); err != nil {
			t.Errorf("ReadSkillFile(%s): %v", f.URI, err)
		}
	}
	if _, err := skills.ReadFile(ctx, c, entries[1], "skill://beta/other"); !errors.Is(err, skills.ErrNotInManifest) {
		t.Errorf("unlisted file: %v", err)
	}

	tests := []struct {
		name     string
		from, to string
		want     error
	}{
		{"digest", "body", "BODY", skills.ErrDigestMismatch},
		{"size", "body", "body and more", skills.ErrSizeMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &statelessCaller{s: s, tamper: func(_ string, res []byte) []byte {
				return []byte(strings.Replace(string(res), tt.from, tt.to, 1))
			}}
			body, err := skills.Read(ctx, c, entries[0])
			if !errors.Is(err, tt.want) || body != nil {
				t.Fatalf("LoadSkill = %q, %v; want %v", body, err, tt.want)
			}
		})
	}
	t.Run("frontmatter", func(t *testing.T) {
		e := entries[0]
		e.Frontmatter = skills.Frontmatter{"name": "alpha", "description": "Something else."}
		if _, err := skills.Read(ctx, c, e); !errors.Is(err, skills.ErrFrontmatterMismatch) {
			t.Fatalf("err = %v", err)
		}
	})
}

// uriOf is params.uri.
func uriOf(params []byte) string {
	v, _ := wire.MemberOf(wire.Raw(params), "uri")
	return string(v)
}
