package config

import (
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// positions remembers where each [[acp_agent]] and each of its keys start in
// the file, so that checks made after decoding (a bad id, a duplicate) can
// name a line. go-toml's decoder does not keep positions; its parser does.
// Offsets are kept; only the keys an error names are turned into lines.
type positions struct {
	data    []byte
	headers []int          // offset of the i-th agent's header (or inline table)
	keys    map[string]int // keyRef(i, path) -> offset of the key
	// other tables' keys (outside acp_agent), by path with "#n" for the
	// n-th element of an array of tables: notify, webhook, #1, url.
	other map[string]int

	lineStarts []int // offset of each line's first byte, built on first use
}

func keyRef(agent int, path []string) string {
	// Only a quoted key with an escaped NUL could collide, and Load refuses
	// those; a collision would only misplace a line in an error.
	return strconv.Itoa(agent) + "\x00" + strings.Join(path, "\x00")
}

// indexPositions walks the document with go-toml's parser. It runs only
// after the decoder accepted the file, so a parse error here cannot happen;
// if the parser ever disagreed, errors would merely lose their line.
func indexPositions(data []byte) *positions {
	ps := &positions{data: data, keys: map[string]int{}, other: map[string]int{}}
	arrays := map[string]int{} // array of tables → elements seen
	var p unstable.Parser
	p.Reset(data)
	agent := -1
	var prefix []string // table path inside the current agent, e.g. ["env"]
	inAgent := false
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.ArrayTable, unstable.Table:
			parts := keyParts(e)
			inAgent = len(parts) > 0 && parts[0] == agentKey
			if !inAgent {
				prefix = parts
				if e.Kind == unstable.ArrayTable {
					k := strings.Join(parts, "\x00")
					arrays[k]++
					prefix = append(parts, "#"+strconv.Itoa(arrays[k]))
				}
				ps.other[strings.Join(prefix, "\x00")] = int(e.Child().Raw.Offset)
				continue
			}
			if len(parts) == 1 {
				// [[acp_agent]] opens a new agent; so does a lone [acp_agent],
				// which the decoder accepts as a one-element array.
				// The header node has no range of its own; its key has.
				agent++
				ps.headers = append(ps.headers, int(e.Child().Raw.Offset))
			}
			prefix = parts[1:]
		case unstable.KeyValue:
			parts := keyParts(e)
			if inAgent {
				ps.record(agent, prefix, e)
				continue
			}
			if it := e.Key(); it.Next() {
				ps.other[strings.Join(append(slices.Clone(prefix), parts...), "\x00")] = int(it.Node().Raw.Offset)
			}
			// acp_agent = [{ id = "a", ... }, ...] declares agents inline.
			if len(parts) == 1 && parts[0] == agentKey && e.Value().Kind == unstable.Array {
				it := e.Value().Children()
				for it.Next() {
					if n := it.Node(); n.Kind == unstable.InlineTable {
						agent++
						ps.headers = append(ps.headers, int(n.Raw.Offset))
						ps.recordTable(agent, nil, n)
					}
				}
			}
		}
	}
	return ps
}

// record notes a key-value of an agent, and the keys of an inline table
// value (env = { A = "x" }).
func (ps *positions) record(agent int, prefix []string, kv *unstable.Node) {
	if agent < 0 {
		return
	}
	path := append(append([]string(nil), prefix...), keyParts(kv)...)
	it := kv.Key()
	if it.Next() {
		ps.keys[keyRef(agent, path)] = int(it.Node().Raw.Offset)
	}
	if v := kv.Value(); v.Kind == unstable.InlineTable {
		ps.recordTable(agent, path, v)
	}
}

func (ps *positions) recordTable(agent int, path []string, table *unstable.Node) {
	it := table.Children()
	for it.Next() {
		if n := it.Node(); n.Kind == unstable.KeyValue {
			ps.record(agent, path, n)
		}
	}
}

func keyParts(n *unstable.Node) []string {
	var parts []string
	it := n.Key()
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// at returns where key path of agent i is, falling back to the agent's header
// (for a key that is absent) and to the top of the file.
func (ps *positions) at(agent int, path ...string) position {
	if off, ok := ps.keys[keyRef(agent, path)]; ok {
		return ps.position(off)
	}
	if agent >= 0 && agent < len(ps.headers) {
		return ps.position(ps.headers[agent])
	}
	return position{line: 1, col: 1}
}

// atKey returns where a key outside acp_agent is, falling back to the
// nearest enclosing table that was written out, then the top of the file.
func (ps *positions) atKey(path ...string) position {
	for n := len(path); n > 0; n-- {
		if off, ok := ps.other[strings.Join(path[:n], "\x00")]; ok {
			return ps.position(off)
		}
	}
	return position{line: 1, col: 1}
}

type position struct{ line, col int }

func (ps *positions) position(offset int) position {
	if ps.lineStarts == nil {
		// Built once: a file with many errors must not be rescanned per error.
		ps.lineStarts = []int{0}
		for i, c := range ps.data {
			if c == '\n' {
				ps.lineStarts = append(ps.lineStarts, i+1)
			}
		}
	}
	// The line is the last one starting at or before offset.
	line, found := slices.BinarySearch(ps.lineStarts, offset)
	if !found {
		line--
	}
	return position{line: line + 1, col: offset - ps.lineStarts[line] + 1}
}
