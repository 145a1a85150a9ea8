package skills

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/protocol"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The client side of the skills extension. Listing a skill reads none of
// its files: a host reads them when it loads the skill (Read), and
// every file it reads is checked against the skill's entry before it is
// handed back — content that fails is never returned.

// List returns every skill the server lists, walking skills/list's
// pages.
func List(ctx context.Context, c protocol.Caller) ([]Entry, error) {
	var out []Entry
	seen := map[string]bool{}
	cursor := ""
	for {
		var page struct {
			Skills     []Entry `json:"skills"`
			NextCursor string  `json:"nextCursor"`
		}
		var params any = struct{}{}
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		if err := callJSON(ctx, c, skillsMethod(0), params, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Skills...)
		if page.NextCursor == "" {
			return out, nil
		}
		if seen[page.NextCursor] {
			return nil, fmt.Errorf("skills: the server repeated cursor %q", page.NextCursor)
		}
		seen[page.NextCursor] = true
		cursor = page.NextCursor
	}
}

// Get returns the entry of the skill whose SKILL.md is uri
// (skills/get).
func Get(ctx context.Context, c protocol.Caller, uri string) (Entry, error) {
	var res struct {
		Skill *Entry `json:"skill"`
	}
	if err := callJSON(ctx, c, skillsMethod(1), map[string]string{"uri": uri}, &res); err != nil {
		return Entry{}, err
	}
	if res.Skill == nil {
		return Entry{}, fmt.Errorf("mcp: skills/get %s: no skill in the result", uri)
	}
	return *res.Skill, nil
}

// Read reads the SKILL.md of entry and returns it once verified: its
// size and digest must match the entry's manifest and its frontmatter the
// entry's frontmatter; otherwise the error wraps ErrSizeMismatch,
// ErrDigestMismatch or ErrFrontmatterMismatch and no content is returned.
// The skill's other files are read, as needed, with ReadFile.
func Read(ctx context.Context, c protocol.Caller, entry Entry) ([]byte, error) {
	data, err := readResourceBytes(ctx, c, entry.URI)
	if err != nil {
		return nil, err
	}
	if _, err := entry.VerifyManifest(data); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadFile reads the file uri of the skill entry and returns it once
// its size and digest match the entry's manifest.
func ReadFile(ctx context.Context, c protocol.Caller, entry Entry, uri string) ([]byte, error) {
	if _, ok := entry.File(uri); !ok || entry.Dynamic {
		return nil, entry.Verify(uri, nil) // the manifest's refusal, before any read
	}
	data, err := readResourceBytes(ctx, c, uri)
	if err != nil {
		return nil, err
	}
	if err := entry.Verify(uri, data); err != nil {
		return nil, err
	}
	return data, nil
}

// readResourceBytes reads uri with resources/read and returns the raw
// bytes of its content (text as UTF-8, blobs decoded).
func readResourceBytes(ctx context.Context, c protocol.Caller, uri string) ([]byte, error) {
	var res struct {
		Contents []struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	if err := callJSON(ctx, c, skillsMethod(2), map[string]string{"uri": uri}, &res); err != nil {
		return nil, err
	}
	for _, ct := range res.Contents {
		if ct.URI != uri && len(res.Contents) > 1 {
			continue
		}
		switch {
		case ct.Text != nil:
			return []byte(*ct.Text), nil
		case ct.Blob != nil:
			b, err := base64.StdEncoding.DecodeString(*ct.Blob)
			if err != nil {
				return nil, fmt.Errorf("mcp: resources/read %s: blob: %w", uri, err)
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("mcp: resources/read %s: no content", uri)
}

// callJSON calls method with params and decodes the result into out, both
// with encoding/json.
func callJSON(ctx context.Context, c protocol.Caller, method string, params, out any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
	var raw wire.Raw
	if err := c.CallInto(ctx, method, wire.Raw(p), raw.Into()); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("mcp: %s: decoding the result: %w", method, err)
	}
	return nil
}

// skillsMethod is the name of the skills extension's skills/list (0),
// skills/get (1) and the resources/read it reads files with (2).
func skillsMethod(i int) string {
	list, get, _, read := protocol.SkillsExtensionMethods()
	return [...]*protocol.Method{list, get, read}[i].Name
}
