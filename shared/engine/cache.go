// This file holds the cache in front of a dependency: the key each call
// asks for (a popularity law over a key space), an LRU cache with a
// capacity and a TTL, its fill (read-through or look-aside), its flush
// (a dependency phase) and request coalescing.

package engine

import "fmt"

// A Cache answers the calls to a dependency for which it holds an
// answer, at a small fixed latency, without their reaching the
// dependency; the others (misses) are forwarded, and fill it when the
// dependency answers them successfully.
//
// Every call through a cache is a read of one key, drawn for each plan
// call of an operation from Keys (its retries ask for the same key). The
// cache holds at most Capacity keys and evicts the least recently used
// one to make room (LRU: a hit or a fill makes a key the most recent); an
// entry older than TTL is a miss when looked up, and is dropped then
// (expired entries are not swept: they keep their place until looked up
// or evicted, as memcached's lazy expiry). A flush phase empties it.
//
// In front of a dependency with backends, the cache is one for all of
// them, before the balancer (a caching proxy in front of a load
// balancer): only a miss is routed to a backend, and a flush empties the
// one cache.
type Cache struct {
	Keys     KeySpace `json:"keys"`
	Capacity int      `json:"capacity"`
	// TTL is how long a filled entry answers; 0: until evicted.
	TTL Duration `json:"ttl,omitzero"`
	// HitLatency is how long a hit takes to answer (0: at once).
	HitLatency Duration `json:"hit_latency,omitzero"`
	// Warm starts the run with the Capacity most popular keys in the
	// cache, as if filled at t=0 (the most popular the most recent);
	// without it the cache starts empty (a cold start).
	Warm bool `json:"warm,omitempty"`
	// Fill is when an answer fills the cache: read_through by default.
	Fill CacheFill `json:"fill,omitempty"`
	// Coalesce makes concurrent misses for the same key wait for the one
	// fetch in progress (Go's singleflight, Varnish's request
	// coalescing): they get its answer, and only it reaches the dependency.
	Coalesce bool `json:"coalesce,omitempty"`
}

// A KeySpace is the keys the calls through a cache ask for and how
// popular each is.
type KeySpace struct {
	Law   KeyLaw `json:"law"`
	Count int    `json:"count"`
	// Exponent is the Zipf law's s: key k (from 1) is asked for with a
	// probability proportional to 1/k^s.
	Exponent float64 `json:"exponent,omitempty"`
}

// Limits of a cache.
const (
	MaxCacheKeys     = 1_000_000
	MaxZipfExponent  = 10.0
	MaxCacheCapacity = MaxCacheKeys
)

// cacheModel is a dependency's cache, compiled.
type cacheModel struct {
	capacity   int
	ttl        int64 // 0: no expiry
	hitLatency int64
	warm       bool
	lookAside  bool
	coalesce   bool
	keys       int
	cdf        []float64 // zipf: cdf[k] = P(key ≤ k); nil for uniform
}

func compileCache(c *Cache) *cacheModel {
	cm := &cacheModel{capacity: c.Capacity, ttl: int64(c.TTL), hitLatency: int64(c.HitLatency),
		warm: c.Warm, lookAside: c.Fill == FillLookAside, coalesce: c.Coalesce, keys: c.Keys.Count}
	if c.Keys.Law == KeysZipf {
		cm.cdf = zipfCDF(c.Keys.Count, c.Keys.Exponent)
	}
	return cm
}

// zipfCDF returns the cumulative probabilities of the Zipf law of
// exponent s over n keys, with the engine's own ln and exp so that every
// platform draws the same keys.
func zipfCDF(n int, s float64) []float64 {
	cdf := make([]float64, n)
	sum := 0.0
	for k := range n {
		sum += exp(float64(-s * ln(float64(k+1))))
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	cdf[n-1] = 1
	return cdf
}

// key returns the key of u in [0, 1): the inverse of the law's
// cumulative distribution, key 0 the most popular.
func (cm *cacheModel) key(u float64) uint32 {
	if cm.cdf == nil {
		return uint32(min(int(u*float64(cm.keys)), cm.keys-1))
	}
	lo, hi := 0, len(cm.cdf)-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cm.cdf[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return uint32(lo)
}

// A cacheEntry is one key held, in the recency list.
type cacheEntry struct {
	key        uint32
	filled     int64
	prev, next int32 // towards the most recent, and the least; -1 at the ends
}

// lruCache is a cache's state in a run.
type lruCache struct {
	slot    map[uint32]int32 // key → entry
	e       []cacheEntry
	free    []int32
	mru     int32 // most recently used, -1 when empty
	lru     int32 // least recently used
	pending map[uint32][]int32
}

func newLRU() *lruCache {
	return &lruCache{slot: map[uint32]int32{}, pending: map[uint32][]int32{}, mru: -1, lru: -1}
}

// emptied returns c emptied, or a new cache when c is nil.
func (c *lruCache) emptied() *lruCache {
	if c == nil {
		return newLRU()
	}
	c.flush()
	clear(c.pending)
	return c
}

// flush empties the cache. Fetches in progress go on, and fill it when
// they are answered.
func (c *lruCache) flush() {
	clear(c.slot)
	c.e, c.free = c.e[:0], c.free[:0]
	c.mru, c.lru = -1, -1
}

func (c *lruCache) len() int { return len(c.slot) }

// unlink takes entry i out of the recency list.
func (c *lruCache) unlink(i int32) {
	e := &c.e[i]
	if e.prev >= 0 {
		c.e[e.prev].next = e.next
	} else {
		c.mru = e.next
	}
	if e.next >= 0 {
		c.e[e.next].prev = e.prev
	} else {
		c.lru = e.prev
	}
}

// front makes entry i the most recently used.
func (c *lruCache) front(i int32) {
	e := &c.e[i]
	e.prev, e.next = -1, c.mru
	if c.mru >= 0 {
		c.e[c.mru].prev = i
	}
	c.mru = i
	if c.lru < 0 {
		c.lru = i
	}
}

// remove drops entry i.
func (c *lruCache) remove(i int32) {
	c.unlink(i)
	delete(c.slot, c.e[i].key)
	c.free = append(c.free, i)
}

// get reports whether key is held and fresh at now; a hit becomes the
// most recently used, an expired entry is dropped.
func (c *lruCache) get(key uint32, now, ttl int64) bool {
	i, ok := c.slot[key]
	if !ok {
		return false
	}
	if ttl > 0 && now-c.e[i].filled >= ttl {
		c.remove(i)
		return false
	}
	c.unlink(i)
	c.front(i)
	return true
}

// put stores key, filled at now, as the most recently used, evicting the
// least recently used entry when capacity keys are held already.
func (c *lruCache) put(key uint32, now int64, capacity int) {
	if i, ok := c.slot[key]; ok {
		c.e[i].filled = now
		c.unlink(i)
		c.front(i)
		return
	}
	if c.len() >= capacity {
		c.remove(c.lru)
	}
	var i int32
	if n := len(c.free); n > 0 {
		i = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		c.e = append(c.e, cacheEntry{})
		i = int32(len(c.e) - 1)
	}
	c.e[i] = cacheEntry{key: key, filled: now}
	c.slot[key] = i
	c.front(i)
}

// keys returns the keys held, the most recently used first (for tests).
func (c *lruCache) keys() []uint32 {
	var ks []uint32
	for i := c.mru; i >= 0; i = c.e[i].next {
		ks = append(ks, c.e[i].key)
	}
	return ks
}

// warmed fills c as a warm start: the capacity most popular keys (for a
// uniform law, the first), the most popular the most recent.
func (c *lruCache) warmed(cm *cacheModel) {
	for k := min(cm.capacity, cm.keys) - 1; k >= 0; k-- {
		c.put(uint32(k), 0, cm.capacity)
	}
}

// cacheKey returns the key request r asks for: drawn for its operation
// and plan call, the same for every attempt.
func (s *sim) cacheKey(r *request, cm *cacheModel) uint32 {
	return cm.key(s.rnd.float(drawCacheKey, s.ops[r.op].key, uint64(r.pc)))
}

// cached looks request r up in its dependency's cache, at s.now, and
// reports whether the cache answered it (a hit) or made it wait for a
// fetch in progress (coalesced). Otherwise r is a miss to forward: it
// becomes the fetch of its key.
func (s *sim) cached(r *request, d *depModel) bool {
	cm, c := d.cache, s.caches[r.dep&(maxDeps-1)]
	key := s.cacheKey(r, cm)
	if c.get(key, s.now, cm.ttl) {
		s.c.cacheHits++
		s.xbin(int(s.cacheX))
		s.respond(*r, outOK, cm.hitLatency)
		return true
	}
	s.c.cacheMisses++
	s.xbin(int(s.cacheX) + 1)
	if cm.coalesce {
		if ws, ok := c.pending[key]; ok {
			s.c.coalesced++
			c.pending[key] = append(ws, s.newRequest(*r))
			return true
		}
		c.pending[key] = nil
	}
	r.fetch = true
	return false
}

// fetched ends the fetch r of its key with outcome out: a success fills
// the cache (read-through: always; look-aside: when a caller, r's or a
// coalesced one, still waits for it), and the calls coalesced on it get
// the same answer.
func (s *sim) fetched(r *request, out int16, retryAfter int64) {
	cm, c := s.cacheOf(r.dep)
	key := s.cacheKey(r, cm)
	ws := c.pending[key]
	if cm.coalesce {
		delete(c.pending, key)
	}
	if out == outOK {
		fill := !cm.lookAside || s.waits(r)
		for _, w := range ws {
			fill = fill || s.waits(&s.reqs[w])
		}
		if fill {
			c.put(key, s.now, cm.capacity)
		}
	}
	for _, w := range ws {
		wr := s.reqs[w]
		s.freeRequest(w)
		s.reply(wr, out, retryAfter)
	}
}

// refetch follows the fetch r of its key, dropped unanswered (its caller
// gave up): the first call coalesced on it, if any, becomes the fetch and
// reaches the dependency; the others wait for it.
func (s *sim) refetch(r *request) {
	cm, c := s.cacheOf(r.dep)
	if !cm.coalesce {
		return
	}
	key := s.cacheKey(r, cm)
	ws := c.pending[key]
	if len(ws) == 0 {
		delete(c.pending, key)
		return
	}
	next := s.reqs[ws[0]]
	s.freeRequest(ws[0])
	c.pending[key] = ws[1:]
	next.fetch = true
	s.reach(next)
}

// cacheOf returns the cache in front of server dep, compiled, and its
// state: a backend's is its dependency's, in front of the balancer.
func (s *sim) cacheOf(dep uint8) (*cacheModel, *lruCache) {
	i := int(dep & (maxDeps - 1))
	if i >= s.nd {
		i = int(s.c.backends[i-s.nd].owner) - 1
	}
	return s.dm[i].cache, s.caches[i]
}

// waits reports whether request r's caller still waits for its answer.
func (s *sim) waits(r *request) bool {
	c := &s.calls[r.call]
	return c.gen == r.gen && c.inflight
}

// cache checks dependency d's cache, at path p (the dependency's, with
// its dot), and that its flush phases have a cache to flush.
func (v *validator) cache(p string, d *Dependency) {
	c := d.Cache
	if c == nil {
		for i, ph := range d.Phases {
			if ph.Kind == PhaseFlush {
				v.add(fmt.Sprintf("%sphases[%d].kind", p, i), ph.Kind, "needs a cache to flush; give the dependency a cache, or remove the phase")
			}
		}
		return
	}
	q := p + "cache."
	if oneOf(v, q+"keys.law", c.Keys.Law, KeyLaws...) {
		switch c.Keys.Law {
		case KeysZipf:
			if !(c.Keys.Exponent > 0 && c.Keys.Exponent <= MaxZipfExponent) {
				v.add(q+"keys.exponent", c.Keys.Exponent, "is out of range; a Zipf law needs an exponent s in (0, %g] (web requests: about 0.64 to 0.83, Breslau et al. 1999)", MaxZipfExponent)
			}
		case KeysUniform:
			if c.Keys.Exponent != 0 {
				v.add(q+"keys.exponent", c.Keys.Exponent, "has no meaning for %q keys; an exponent is for \"zipf\"", c.Keys.Law)
			}
		}
	}
	v.intRange(q+"keys.count", c.Keys.Count, 1, MaxCacheKeys)
	v.intRange(q+"capacity", c.Capacity, 1, MaxCacheCapacity)
	v.span(q+"ttl", c.TTL, true)
	v.span(q+"hit_latency", c.HitLatency, true)
	if c.Fill != "" {
		oneOf(v, q+"fill", c.Fill, CacheFills...)
	}
	if d.Contention != nil {
		v.add(q[:len(q)-1], nil, "is given together with contention; a cache answers reads, contention models writes: give one of them")
	}
	if d.Script != nil {
		v.add(q[:len(q)-1], nil, "is given together with a script; a script answers every call itself: give one of them")
	}
}
