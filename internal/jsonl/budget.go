package jsonl

import "unsafe"

// DefaultBudget is the memory a Cache's indexes may take, as they estimate
// it (see Indexed's Size), before the least recently used are dropped. The index of
// a 100 MB Gemini chat file takes about 10 MB (its replay keeps every
// record's place; Claude's and Codex's indexes, the places of their lines,
// take less), that of a session of a few turns a few kilobytes: 64 MB keeps
// every small session of a big workspace and the few big transcripts being
// read, and a daemon with a cache per store stays within 200 MB of indexes
// however many transcripts are browsed. A dropped index costs its next use
// a load of its persisted copy (15–20 ms for a 100 MB Gemini file) or,
// without one, a scan of its file.
const DefaultBudget = 64 << 20

// entryCost is what an entry takes besides its index's own: the entry, its
// list element and map slot, the index's struct and file version.
const entryCost = 512

// sizeOf estimates the memory x, which may be nil, takes.
func sizeOf[T any, P Indexed[T]](x P) int64 {
	if x == nil {
		return 0
	}
	b := x.base()
	return int64(unsafe.Sizeof(*x)) + int64(cap(b.lines))*int64(unsafe.Sizeof(Span{})) + int64(cap(b.split.Pending)) + x.Size()
}

// Budget sets how much memory c's indexes may take (see DefaultBudget); it
// returns c.
func (c *Cache[T, P]) Budget(n int64) *Cache[T, P] {
	c.mu.Lock()
	c.budget = n
	c.mu.Unlock()
	return c
}

// use counts e's index, just refreshed (the caller holds e.mu), at its
// size now, and drops the least recently used entries, e excepted, while
// the cache is over its budget. A dropped entry is only no longer found:
// a request that holds it goes on with its index (a page read in progress
// is not broken), and the next use of its path makes a new entry, loaded
// from the persisted index (whose save a drop does not stop) or scanned.
func (c *Cache[T, P]) use(e *cached[P]) {
	n := entryCost + int64(len(e.path)) + sizeOf(e.idx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.elem == nil { // dropped (forgotten, pruned) meanwhile
		return
	}
	c.used += n - e.size
	e.size = n
	c.lru.MoveToFront(e.elem)
	for c.used > c.budget && c.lru.Len() > 1 {
		c.drop(c.lru.Back().Value.(*cached[P]))
	}
}

// drop removes e from c; the caller holds c.mu.
func (c *Cache[T, P]) drop(e *cached[P]) {
	delete(c.entries, e.path)
	c.lru.Remove(e.elem)
	c.used -= e.size
	e.elem, e.size = nil, 0
}
