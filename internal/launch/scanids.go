package launch

import (
	"bufio"
	"io"
	"regexp"
)

// outputScanBytes bounds how much of each output file is searched for
// ids: a program printing without end must not keep the server reading.
// Tools print the ids of their jobs as they submit them, near the start.
const outputScanBytes = 64 << 20

// ScanIDs returns the first submatch of patterns found in the files (the
// launcher's own, opened as OpenOutput does), each once, in order.
func ScanIDs(files []string, patterns []*regexp.Regexp) []string {
	var ids []string
	seen := map[string]bool{}
	search := func(b []byte) {
		for _, p := range patterns {
			for _, m := range p.FindAllSubmatch(b, -1) {
				if id := string(m[1]); !seen[id] {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
	}
	for _, name := range files {
		f, err := OpenOutput(name)
		if err != nil {
			continue
		}
		r := bufio.NewReaderSize(io.LimitReader(f, outputScanBytes), ScanChunk)
		var carry []byte // the end of the previous piece of a long line
		for {
			piece, err := r.ReadSlice('\n')
			search(append(carry, piece...))
			carry = carry[:0]
			if err == bufio.ErrBufferFull {
				carry = append(carry, piece[max(0, len(piece)-ScanOverlap):]...)
				continue
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return ids
}

// scanChunk is how much of a line of tool output is searched for ids at
// once; a longer line is searched in pieces that overlap by scanOverlap
// bytes, so that an id across the cut is still found.
const (
	ScanChunk   = 64 * 1024
	ScanOverlap = 256
)
