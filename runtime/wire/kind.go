package wire

// Kind is the kind of a JSON value, as told by its first byte.
type Kind uint8

// The kinds of JSON values. Invalid stands for end of input or a byte that
// cannot start a value.
const (
	Invalid Kind = iota
	Null
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{
	Invalid: "invalid",
	Null:    "null",
	Bool:    "boolean",
	Number:  "number",
	String:  "string",
	Array:   "array",
	Object:  "object",
}

// String returns the lower-case JSON name of the kind ("string", "boolean",
// ...), as used in error messages.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// kindOf maps a value's first byte to its kind.
var kindOf = [256]Kind{
	'n': Null,
	't': Bool, 'f': Bool,
	'-': Number, '0': Number, '1': Number, '2': Number, '3': Number, '4': Number,
	'5': Number, '6': Number, '7': Number, '8': Number, '9': Number,
	'"': String,
	'[': Array,
	'{': Object,
}
