package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/retrylab/retrylab/shared/engine"
)

// The budget of one YAML stream, all its documents together: what a few
// bytes of aliases and merge keys may expand to (a "billion laughs") is
// bounded in values (maxYAMLNodes: every value, alias and merged mapping
// counts each time it is reached), in nesting (maxYAMLDepth, far beyond
// any configuration's) and in the bytes of the keys, strings and paths it
// makes (maxYAMLBytes), so that no document, however small, can cost more
// than a few milliseconds and a few megabytes to read.
const (
	maxYAMLNodes = 100_000
	maxYAMLDepth = 64
	maxYAMLBytes = 8 << 20
)

// decodeYAML reads every document of a YAML stream (JSON is YAML too)
// into the tree decodeJSON makes: objects as map[string]any, arrays as
// []any, numbers as json.Number, strings, booleans and nil, so that the
// importers read YAML and JSON with the same code. Empty documents are
// left out. Timestamps and other tagged scalars stay the strings they are
// written as. A key given twice in one mapping is an error, as it is for
// Kubernetes and Spring Boot; so is an alias to a node that contains it
// (through a merge key too), and an alias to an anchor of an earlier
// document (YAML 1.2 scopes anchors to their document).
func decodeYAML(data []byte) ([]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	d := yamlDecoder{nodes: maxYAMLNodes, bytes: maxYAMLBytes}
	var docs []any
	for {
		var node yaml.Node
		err := dec.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "yaml: ")
			if strings.Contains(msg, "found character that cannot start any token") && bytes.ContainsRune(data, '\t') {
				msg += " (a tab? YAML indents with spaces only)"
			}
			return nil, engine.Errors{{Value: "the document", Message: "is not YAML: " + msg}}
		}
		if err := d.document(&node); err != nil {
			return nil, err
		}
		v, err := d.value(&node, "")
		if err != nil {
			return nil, err
		}
		if v != nil {
			docs = append(docs, v)
		}
	}
	if len(docs) == 0 {
		return nil, engine.Errors{{Value: "the document", Message: "is empty; a YAML or JSON document is needed"}}
	}
	return docs, nil
}

// A yamlDecoder turns the nodes of a YAML stream into values, within one
// budget for the whole stream.
type yamlDecoder struct {
	nodes int   // values it may still make
	bytes int64 // bytes of keys, strings and paths it may still make
	depth int
	open  map[*yaml.Node]bool // the nodes being decoded, for aliases to themselves
	alias int                 // the line of the alias last followed
	own   map[*yaml.Node]bool // the nodes of the document being decoded, for aliases out of it
}

// document makes root's nodes the ones its aliases may refer to. It walks
// the document as written, without following aliases, so that it costs
// what the document's text does.
func (d *yamlDecoder) document(root *yaml.Node) error {
	d.own = map[*yaml.Node]bool{}
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if d.own[n] {
			return nil
		}
		d.own[n] = true
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return err
	}
	for n := range d.own {
		if n.Kind == yaml.AliasNode && n.Alias != nil && !d.own[n.Alias] {
			return engine.Errors{{Value: "an alias", Message: fmt.Sprintf("at line %d refers to the anchor %q of an earlier document; allowed anchors of its own document", n.Line, n.Value)}}
		}
	}
	return nil
}

// enter counts n against the budget and marks it open; leave undoes the
// marks. Every node the decoder reaches, by its place, an alias or a merge
// key, goes through enter.
func (d *yamlDecoder) enter(n *yaml.Node, path string) error {
	if d.nodes--; d.nodes < 0 {
		return engine.Errors{{Value: "the document", Message: fmt.Sprintf("expands to more than %d values (through its aliases and merge keys, at line %d); allowed a configuration, not a data set", maxYAMLNodes, n.Line)}}
	}
	if d.bytes -= int64(len(path) + len(n.Value)); d.bytes < 0 {
		return engine.Errors{{Value: "the document", Message: fmt.Sprintf("expands to more than %d MiB of keys and strings (through its aliases and merge keys, at line %d); allowed a configuration, not a data set", maxYAMLBytes>>20, n.Line)}}
	}
	if d.open[n] {
		return engine.Errors{{Path: path, Value: "an alias", Message: fmt.Sprintf("at line %d refers to a node that contains it; allowed aliases to other nodes", d.alias)}}
	}
	if d.depth++; d.depth > maxYAMLDepth {
		return engine.Errors{{Value: "the document", Message: fmt.Sprintf("nests deeper than %d levels (at line %d); allowed a configuration", maxYAMLDepth, n.Line)}}
	}
	if d.open == nil {
		d.open = map[*yaml.Node]bool{}
	}
	d.open[n] = true
	return nil
}

func (d *yamlDecoder) leave(n *yaml.Node) {
	d.depth--
	delete(d.open, n)
}

func (d *yamlDecoder) value(n *yaml.Node, path string) (any, error) {
	if err := d.enter(n, path); err != nil {
		return nil, err
	}
	defer d.leave(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return d.value(n.Content[0], path)
	case yaml.AliasNode:
		d.alias = n.Line
		return d.value(n.Alias, path)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			v, err := d.value(c, index(path, i))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		out := map[string]any{}
		if err := d.mapping(n, path, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return scalar(n), nil
}

// mapping adds n's pairs to out. Pairs merged in by "<<" never replace a
// key the mapping writes itself, wherever it writes it, as YAML's merge key
// says; a key written twice is an error.
func (d *yamlDecoder) mapping(n *yaml.Node, path string, out map[string]any) error {
	own := map[string]bool{}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			return engine.Errors{{Path: path, Value: "a key", Message: fmt.Sprintf("at line %d is not a scalar; allowed names", k.Line)}}
		}
		key := k.Value
		if own[key] {
			return engine.Errors{{Path: join(path, key), Value: "the key", Message: fmt.Sprintf("is given twice (again at line %d); allowed once", k.Line)}}
		}
		own[key] = true
		val, err := d.value(v, join(path, key))
		if err != nil {
			return err
		}
		out[key] = val
	}
	for _, v := range merges {
		if err := d.merge(v, path, out, false); err != nil {
			return err
		}
	}
	return nil
}

// merge adds the pairs of a merge key's mapping (or list of mappings, the
// first winning) to out, the mapping at path, where it has no such key
// yet. Like value, it counts every node it reaches, aliases included, and
// refuses one that contains itself; inList says v is an item of the list.
func (d *yamlDecoder) merge(v *yaml.Node, path string, out map[string]any, inList bool) error {
	at := join(path, "<<")
	if err := d.enter(v, at); err != nil {
		return err
	}
	defer d.leave(v)
	switch {
	case v.Kind == yaml.AliasNode:
		d.alias = v.Line
		return d.merge(v.Alias, path, out, inList)
	case v.Kind == yaml.MappingNode:
		m := map[string]any{}
		if err := d.mapping(v, path, m); err != nil {
			return err
		}
		for k, x := range m {
			if _, ok := out[k]; !ok {
				out[k] = x
			}
		}
		return nil
	case v.Kind == yaml.SequenceNode && !inList:
		for _, c := range v.Content {
			if err := d.merge(c, path, out, true); err != nil {
				return err
			}
		}
		return nil
	}
	what := "a list"
	if v.Kind != yaml.SequenceNode {
		what = show(v.Value)
	}
	return engine.Errors{{Path: at, Value: what, Message: fmt.Sprintf("at line %d is not a mapping; a merge key takes a mapping or a list of mappings", v.Line)}}
}

// scalar converts a resolved YAML scalar: numbers to json.Number in Go's
// notation, so that 0x10, 1e3 and .inf read as the numbers YAML means.
func scalar(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
		var f float64
		if n.Decode(&f) == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil {
			// .inf and .nan too: number() refuses them by name.
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	return n.Value
}

// encodeYAML writes v (structs with yaml tags, in field order) as YAML
// with two-space indentation, the style of Kubernetes and Spring Boot
// documentation.
func encodeYAML(v any) []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		panic(err) // the exporters' own types always encode
	}
	enc.Close()
	return b.Bytes()
}

// kubeTrees returns the documents' trees, for formatHint.
func kubeTrees(docs []kubeDoc) []any {
	out := make([]any, len(docs))
	for i, d := range docs {
		out[i] = d.root.m
	}
	return out
}

// formatHint guesses, for an importer that found nothing of its own
// format in docs, which other YAML format they are in: "; it looks like
// an Istio document: import it with the format istio", or "".
func formatHint(docs []any, self string) string {
	for _, d := range docs {
		m, ok := d.(map[string]any)
		if !ok {
			continue
		}
		api, _ := m["apiVersion"].(string)
		if api == "" {
			api, _ = m["api_version"].(string) // as the Envoy importer renamed it
		}
		f, what := "", ""
		switch {
		case strings.Contains(api, "istio.io"):
			f, what = Istio, "an Istio document"
		case strings.Contains(api, "linkerd.io") || strings.Contains(api, "gateway.networking.k8s.io"):
			f, what = Linkerd, "a Linkerd document"
		case m["resilience4j"] != nil:
			f, what = Resilience4j, "a resilience4j configuration"
		case m["static_resources"] != nil || m["virtual_hosts"] != nil || m["staticResources"] != nil || m["virtualHosts"] != nil:
			f, what = Envoy, "an Envoy configuration"
		case m["methodConfig"] != nil:
			f, what = GRPC, "a gRPC service config"
		}
		if f != "" && f != self {
			return fmt.Sprintf("; it looks like %s: import it with the format %s", what, f)
		}
	}
	return ""
}
