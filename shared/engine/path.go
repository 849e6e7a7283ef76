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
