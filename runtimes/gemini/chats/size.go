package chats

import (
	"unsafe"
)

// Size is the memory x takes besides its Lines (jsonl.Indexed), with the
// view a Store makes of it while it is cached: at most an entry per record
// (view.all) and a tool-call id each. An estimate, found without walking
// the records: a refresh that appends a line stays as cheap as it was.
func (x *index) Size() int64 {
	recSize := int64(unsafe.Sizeof(rec{}))
	n := int64(cap(x.strs)) + int64(cap(x.recs))*recSize
	for _, s := range x.segs {
		n += int64(cap(s)) * recSize
	}
	if x.pos != nil {
		n += int64(cap(x.pos.slots))*int64(unsafe.Sizeof(slot{})) + int64(len(x.pos.more))*64
	}
	perView := int64(unsafe.Sizeof(entry{})) + 8 + 32
	return n + int64(x.nrecs())*perView
}
