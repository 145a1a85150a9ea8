//go:build !mcpgen_nojsonschema

package fullschema_test

import (
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/toolschema"
	_ "github.com/mcpgen/mcpgen/runtime/toolschema/fullschema"
)

// A program imports the package for its effect; tools whose schemas nest
// objects or combine schemas are then checked too.
func Example() {
	s, _ := toolschema.Compile([]byte(`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`), true)
	fmt.Println(s.Check([]byte(`{"tags":["a",2]}`)))
	// Output: /tags/1: expected string, but got number
}
