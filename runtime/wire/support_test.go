package wire

import (
	"slices"
	"testing"
)

// TestSortedKeys: keys in order, in the caller's buffer while they fit.
func TestSortedKeys(t *testing.T) {
	m := map[string]int{"b": 2, "a": 1, "c": 3}
	var buf [16]string
	if got := SortedKeys(m, buf[:0]); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("SortedKeys = %v", got)
	}
	if n := testing.AllocsPerRun(100, func() { SortedKeys(m, buf[:0]) }); n != 0 {
		t.Errorf("SortedKeys allocates %v times with room in the buffer", n)
	}
}
