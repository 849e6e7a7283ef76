package server

import (
	"container/list"
	"sync"
)

// An lru keeps values by key, up to max entries and maxBytes in all as
// size counts them, and drops the least recently used. A value over
// entryBytes is not kept. It is safe for concurrent use.
type lru[V any] struct {
	mu                   sync.Mutex
	max                  int
	maxBytes, entryBytes int64
	bytes                int64
	size                 func(V) int64
	m                    map[string]*list.Element
	order                *list.List // of lruEntry[V], most recently used first
}

type lruEntry[V any] struct {
	key   string
	v     V
	bytes int64
}

func newLRU[V any](max int, maxBytes, entryBytes int64, size func(V) int64) *lru[V] {
	return &lru[V]{max: max, maxBytes: maxBytes, entryBytes: min(entryBytes, maxBytes), size: size,
		m: map[string]*list.Element{}, order: list.New()}
}

func (c *lru[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(lruEntry[V]).v, true
	}
	var zero V
	return zero, false
}

// put keeps v under key, unless the key is there already (then it replaces
// it) or v is larger than an entry may be; it reports whether v is kept.
func (c *lru[V]) put(key string, v V) bool {
	n := c.size(v) + int64(len(key))
	if n > c.entryBytes {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[key]; ok {
		c.bytes -= el.Value.(lruEntry[V]).bytes
		c.order.Remove(el)
	}
	c.m[key] = c.order.PushFront(lruEntry[V]{key, v, n})
	c.bytes += n
	for c.order.Len() > c.max || c.bytes > c.maxBytes {
		e := c.order.Remove(c.order.Back()).(lruEntry[V])
		delete(c.m, e.key)
		c.bytes -= e.bytes
	}
	return true
}

func (c *lru[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// sizeBytes returns the bytes the entries are counted for.
func (c *lru[V]) sizeBytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}
