package streaming

import (
	"bytes"
	"slices"
)

// Sorting the sort buffer. A comparison sort through a function value was
// most of a job's own CPU time; records are sorted instead by a most
// significant digit radix sort on the 8-byte key prefix (the partition
// first), which touches each record a few times whatever the number of
// equal keys, and only the records whose prefixes tie fall back to
// comparing whole keys.

// insertionMax is the size below which a range is insertion-sorted.
const insertionMax = 32

// sortRecs sorts recs by partition, then key; tmp is scratch space at
// least as long as recs.
func sortRecs(recs, tmp []rec, arena []byte, parts int) {
	if parts <= 1 {
		radixSort(recs, tmp, arena, 56)
		return
	}
	count := make([]int, parts)
	for i := range recs {
		count[recs[i].part]++
	}
	pos := make([]int, parts)
	sum := 0
	for p, n := range count {
		pos[p] = sum
		sum += n
	}
	for i := range recs {
		p := recs[i].part
		tmp[pos[p]] = recs[i]
		pos[p]++
	}
	copy(recs, tmp[:len(recs)])
	start := 0
	for _, n := range count {
		radixSort(recs[start:start+n], tmp[start:start+n], arena, 56)
		start += n
	}
}

// radixSort sorts a, whose prefixes agree above bit shift+8, by the byte
// of the prefix at shift and the bytes below it.
func radixSort(a, tmp []rec, arena []byte, shift int) {
	for {
		if len(a) <= insertionMax {
			insertionSort(a, arena)
			return
		}
		if shift < 0 {
			// Equal prefixes: the rest of the keys decides.
			slices.SortFunc(a, func(x, y rec) int { return compareRecs(x, y, arena) })
			return
		}
		var count [256]int
		for i := range a {
			count[byte(a[i].prefix>>shift)]++
		}
		if count[byte(a[0].prefix>>shift)] == len(a) {
			shift -= 8 // one bucket: nothing to move at this byte
			continue
		}
		var pos [256]int
		sum := 0
		for b, n := range count {
			pos[b] = sum
			sum += n
		}
		for i := range a {
			b := byte(a[i].prefix >> shift)
			tmp[pos[b]] = a[i]
			pos[b]++
		}
		copy(a, tmp[:len(a)])
		start := 0
		for _, n := range count {
			if n > 1 {
				radixSort(a[start:start+n], tmp[start:start+n], arena, shift-8)
			}
			start += n
		}
		return
	}
}

// compareRecs orders two records of one partition by key: prefix, then
// the key bytes past it (a key that is a prefix of the other first).
func compareRecs(x, y rec, arena []byte) int {
	if x.prefix != y.prefix {
		if x.prefix < y.prefix {
			return -1
		}
		return 1
	}
	if x.klen <= 8 && y.klen <= 8 {
		return int(x.klen) - int(y.klen)
	}
	// Equal prefixes: the first min(8, len) bytes agree.
	return bytes.Compare(arena[x.off+min(8, x.klen):x.off+x.klen], arena[y.off+min(8, y.klen):y.off+y.klen])
}

func insertionSort(a []rec, arena []byte) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && compareRecs(a[j], a[j-1], arena) < 0; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
