package engine

import (
	"encoding/json"
	"reflect"
)

// A PathStep is a step of a path such as "strategies[1].backoff.base":
// an object's field, Key, or, when Key is "", a list's element, Index.
type PathStep struct {
	Key   string
	Index int
}

// ParsePath reads a path such as "strategies[1].backoff.base" into its
// steps, as a sweep's path is read. Its errors name field, where the
// path was written.
func ParsePath(path, field string) ([]PathStep, error) {
	steps, err := parsePath(path, field)
	if err != nil {
		return nil, err
	}
	out := make([]PathStep, len(steps))
	for i, st := range steps {
		out[i] = PathStep{Key: st.key, Index: st.index}
	}
	return out, nil
}

// SetPath sets the value at a path, parsed into steps, in a generic
// JSON tree (numbers as json.Number), as a sweep's value is set: val nil
// leaves the field out; missing object fields are created, list indexes
// must exist. Its errors name field, where the path was written.
func SetPath(tree any, steps []PathStep, val any, path, field string) error {
	in := make([]pathStep, len(steps))
	for i, st := range steps {
		in[i] = pathStep{key: st.Key, index: st.Index}
	}
	return setPath(tree, in, val, path, field)
}

// JoinPath appends an object key to a path, as errors' paths are
// written: a plain key after a dot, any other (empty, spaces,
// punctuation) quoted in brackets.
func JoinPath(path, key string) string { return join(path, key) }

// FieldNames returns the JSON names of struct type t's fields, those of
// embedded structs included, in order: the keys Decode reads.
func FieldNames(t reflect.Type) []string { return fieldNames(t) }

// FieldIndex returns the index path (for reflect.Type.FieldByIndex) of
// the field of struct type t that Decode reads at JSON key, false when
// t has none.
func FieldIndex(t reflect.Type, key string) ([]int, bool) {
	idx, ok := structFields(t)[key]
	return idx, ok
}

// DecodeStrategy decodes a strategy from a generic JSON tree (numbers as
// json.Number, so that it judges them as written) as Decode decodes
// one written at path, with the same errors.
func DecodeStrategy(path string, tree any) (Strategy, error) {
	var st Strategy
	d := decoder{}
	d.value(path, tree, reflect.ValueOf(&st).Elem())
	if len(d.errs) > 0 {
		return Strategy{}, d.errs
	}
	return st, nil
}

// Edited returns a copy of sc, without its sweep and search, with value
// at path, read again: how a sweep's values and a search's variants are
// made. value null leaves the field out. Errors about the path name
// field; who (such as "a variant") is what may not change the version,
// the sweep or the search.
func (sc *Scenario) Edited(path string, value json.RawMessage, field, who string) (*Scenario, error) {
	return sc.edited(path, value, field, who)
}
