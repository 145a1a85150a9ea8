package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/skills"
	"github.com/mcpgen/mcpgen/runtime/wire"
)

// The client side of the skills extension. Listing a skill reads none of
// its files: a host reads them when it loads the skill (LoadSkill), and
// every file it reads is checked against the skill's entry before it is
// handed back — content that fails is never returned.

// ListSkills returns every skill the server lists, walking skills/list's
// pages.
func ListSkills(ctx context.Context, c Caller) ([]skills.Entry, error) {
	var out []skills.Entry
	for e, err := range Pages(ctx, func(ctx context.Context, cursor string) ([]skills.Entry, string, error) {
		var page struct {
			Skills     []skills.Entry `json:"skills"`
			NextCursor string         `json:"nextCursor"`
		}
		var params any = struct{}{}
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		if err := callJSON(ctx, c, extSkillsList.Name, params, &page); err != nil {
			return nil, "", err
		}
		return page.Skills, page.NextCursor, nil
	}) {
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// GetSkill returns the entry of the skill whose SKILL.md is uri
// (skills/get).
func GetSkill(ctx context.Context, c Caller, uri string) (skills.Entry, error) {
	var res struct {
		Skill *skills.Entry `json:"skill"`
	}
	if err := callJSON(ctx, c, extSkillsGet.Name, map[string]string{"uri": uri}, &res); err != nil {
		return skills.Entry{}, err
	}
	if res.Skill == nil {
		return skills.Entry{}, fmt.Errorf("mcp: skills/get %s: no skill in the result", uri)
	}
	return *res.Skill, nil
}

// LoadSkill reads the SKILL.md of entry and returns it once verified: its
// size and digest must match the entry's manifest and its frontmatter the
// entry's frontmatter; otherwise the error wraps skills.ErrSizeMismatch,
// ErrDigestMismatch or ErrFrontmatterMismatch and no content is returned.
// The skill's other files are read, as needed, with ReadSkillFile.
func LoadSkill(ctx context.Context, c Caller, entry skills.Entry) ([]byte, error) {
	data, err := readResourceBytes(ctx, c, entry.URI)
	if err != nil {
		return nil, err
	}
	if _, err := entry.VerifyManifest(data); err != nil {
		return nil, err
	}
	return data, nil
}

// ReadSkillFile reads the file uri of the skill entry and returns it once
// its size and digest match the entry's manifest.
func ReadSkillFile(ctx context.Context, c Caller, entry skills.Entry, uri string) ([]byte, error) {
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
func readResourceBytes(ctx context.Context, c Caller, uri string) ([]byte, error) {
	var res struct {
		Contents []struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	if err := callJSON(ctx, c, skillsReadMethod, map[string]string{"uri": uri}, &res); err != nil {
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
func callJSON(ctx context.Context, c Caller, method string, params, out any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
	var raw wire.Raw
	if err := c.Call(ctx, method, wire.Raw(p), &raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("mcp: %s: decoding the result: %w", method, err)
	}
	return nil
}
