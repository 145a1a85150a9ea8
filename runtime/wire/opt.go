package wire

// Opt is an optional value whose presence survives a decode/encode round
// trip: Set distinguishes an absent member from one holding the zero value.
type Opt[T any] struct {
	Value T
	Set   bool
}

// Some returns a present Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Value: v, Set: true} }

// Get returns the value and whether it is present.
func (o Opt[T]) Get() (T, bool) { return o.Value, o.Set }

// Or returns the value if present, else def.
func (o Opt[T]) Or(def T) T {
	if o.Set {
		return o.Value
	}
	return def
}

// Clear makes o absent and drops its value.
func (o *Opt[T]) Clear() { *o = Opt[T]{} }
