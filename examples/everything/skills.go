package main

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/mcpgen/mcpgen/runtime/skills"
)

// skillFiles are the skills the server offers (the
// io.modelcontextprotocol/skills extension): a directory per skill, each
// with its SKILL.md; code-review has a subdirectory, so
// resources/directory/read has a directory to list.
//
//go:embed skills
var skillFiles embed.FS

// loadSkills loads the embedded skills.
func loadSkills() (*skills.Catalog, error) {
	sub, err := fs.Sub(skillFiles, "skills")
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	return skills.Load(sub, skills.Options{})
}
