package protocol

import (
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/wire"
)

// list stands for a handler's result: its JSON is a raw value, which
// refuses to encode when it is not JSON.
type list struct{ json string }

func (l *list) EncodeJSON(e *wire.Encoder) { e.RawValue(wire.Raw(l.json)) }

// converted stands for the other revision's result.
type converted struct{ from string }

func TestResultCache(t *testing.T) {
	big := `"` + strings.Repeat("x", MaxCachedResult) + `"`
	for _, tc := range []struct {
		name string
		// the JSON of the handler's result at each call (one value,
		// changed in place), and whether each call converts.
		jsons    []string
		converts []bool
	}{
		{"same result: converted once", []string{`[1,2]`, `[1,2]`, `[1,2]`}, []bool{true, false, false}},
		{"changed in place: converted again", []string{`[1,2]`, `[1,2,3]`, `[1,2,3]`, `[1,2]`}, []bool{true, true, false, true}},
		// Bytes compared as they are: the answer's encoding reports them.
		{"not JSON: compared as bytes", []string{`[1,`, `[1,`, `[2,`}, []bool{true, false, true}},
		{"larger than MaxCachedResult: converted every time", []string{big, big}, []bool{true, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c ResultCache[*list, *converted]
			in := &list{}
			var prev *converted
			for i, j := range tc.jsons {
				in.json = j
				calls := 0
				out := c.Convert(in, func(l *list) *converted {
					calls++
					return &converted{from: l.json}
				})
				if out.from != j {
					t.Fatalf("call %d: the conversion of %.20q, want of %.20q", i, out.from, j)
				}
				if got := calls == 1; got != tc.converts[i] {
					t.Errorf("call %d: converted %v, want %v", i, got, tc.converts[i])
				}
				if !tc.converts[i] && out != prev {
					t.Errorf("call %d: not the conversion returned before", i)
				}
				prev = out
			}
		})
	}
}

// TestResultCacheConcurrent: requests served at once share the cache (run
// with -race); each gets the conversion of what its handler returned.
func TestResultCacheConcurrent(t *testing.T) {
	var c ResultCache[*list, *converted]
	results := []*list{{`["a"]`}, {`["b"]`}}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				in := results[(g+i)%2]
				out := c.Convert(in, func(l *list) *converted { return &converted{from: l.json} })
				if out.from != in.json {
					t.Errorf("the conversion of %s for %s", out.from, in.json)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkResultCache is what a bridge pays for a list it converted
// before: the encoding of the handler's result and a comparison.
func BenchmarkResultCache(b *testing.B) {
	var c ResultCache[*list, *converted]
	in := &list{`{"tools":[` + strings.Repeat(`{"name":"t","inputSchema":{"type":"object"}},`, 20) + `{"name":"last"}]}`}
	conv := func(l *list) *converted { return &converted{from: l.json} }
	c.Convert(in, conv)
	b.ReportAllocs()
	for b.Loop() {
		c.Convert(in, conv)
	}
}
