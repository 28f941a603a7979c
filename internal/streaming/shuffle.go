package streaming

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// rec indexes one map output record in a mapper's sort buffer: key and
// value lie one after the other at off in the arena. prefix holds the
// first 8 key bytes big-endian, so that most comparisons of the sort are
// one integer comparison.
type rec struct {
	prefix uint64
	off    uint32
	klen   uint32
	vlen   uint32
	part   uint32
}

// recSize is what one rec costs in the sort buffer besides its bytes.
const recSize = 24

// run is one sorted, spilled part of a mapper's output: a file with the
// records of each partition in a section of their own, each record as
// uvarint key length, uvarint value length, key, value.
type run struct {
	path     string
	sections [][2]int64 // per partition: start, end
}

func (rn *run) remove() { os.Remove(rn.path) }

// hashPartition is Hadoop's HashPartitioner over a Text key: the Java
// hash of the key bytes (signed), made non-negative, modulo n.
func hashPartition(key []byte, n int) int {
	if n == 1 {
		return 0
	}
	h := int32(1)
	for _, b := range key {
		h = 31*h + int32(int8(b))
	}
	return int(h&0x7fffffff) % n
}

func keyPrefix(k []byte) uint64 {
	var b [8]byte
	copy(b[:], k)
	return binary.BigEndian.Uint64(b[:])
}

// collector is the sort buffer of one mapper.
type collector struct {
	r     *runner
	name  string
	arena []byte
	recs  []rec
	tmp   []rec // scratch space of the sort
	runs  []*run
}

// getBuffer returns a sort buffer: an arena for record bytes and an index
// sharing at most Job.SortBuffer between them. Buffers are reused by the
// next mapper (at most Parallel exist), which spares the allocation, the
// growing copies and most of the garbage collector's work. A small split
// gets a buffer to its measure (four times its size, at least 4 MiB):
// touching 64 MiB of fresh memory costs more than sorting a few megabytes.
func (r *runner) getBuffer(splitLen int64) ([]byte, []rec, []rec) {
	size := r.job.SortBuffer
	if splitLen >= 0 && splitLen < size/4 { // -1: unknown (gzip)
		size = max(4*splitLen, min(4<<20, size))
	}
	select {
	case b := <-r.buffers:
		if int64(cap(b.arena)+2*cap(b.recs)*recSize) >= size {
			return b.arena[:0], b.recs[:0], b.tmp
		}
	default:
	}
	// A word count's records are ~8 bytes: 40% of the buffer for the
	// index and its sort's scratch space is about right; a record too
	// many spills early, nothing else.
	nrecs := max(size/5/recSize, 16)
	return make([]byte, 0, max(size-2*nrecs*recSize, 64)), make([]rec, 0, nrecs), make([]rec, nrecs)
}

func (r *runner) putBuffer(arena []byte, recs, tmp []rec) {
	select {
	case r.buffers <- sortBuffer{arena, recs, tmp}:
	default:
	}
}

type sortBuffer struct {
	arena     []byte
	recs, tmp []rec
}

// collect reads a mapper's output into sorted runs.
func (r *runner) collect(rd io.Reader, name string, splitLen int64) ([]*run, error) {
	c := &collector{r: r, name: name}
	c.arena, c.recs, c.tmp = r.getBuffer(splitLen)
	defer func() { r.putBuffer(c.arena, c.recs, c.tmp) }()
	var recs, outBytes int64
	err := readLines(rd, func(line []byte) error {
		recs++
		outBytes += int64(len(line)) + 1
		ke, vs := splitKey(line, r.mapOutSep, r.job.KeyFields)
		key, val := line[:ke], line[vs:]
		// The buffer is allocated once and never grows: a full one is
		// spilled. A record larger than the whole buffer is held on its
		// own (the append grows the arena for it).
		if (len(c.arena)+len(key)+len(val) > cap(c.arena) || len(c.recs) == cap(c.recs)) && len(c.recs) > 0 {
			if err := c.spill(); err != nil {
				return err
			}
		}
		if len(key)+len(val) > 1<<31 {
			return fmt.Errorf("record of %d bytes too large", len(line))
		}
		off := len(c.arena)
		c.arena = append(c.arena, key...)
		c.arena = append(c.arena, val...)
		c.recs = append(c.recs, rec{prefix: keyPrefix(key), off: uint32(off), klen: uint32(len(key)), vlen: uint32(len(val)),
			part: uint32(hashPartition(key, r.job.Reduces))})
		return nil
	})
	r.c.mapOut.Add(recs)
	r.c.mapOutBytes.Add(outBytes)
	if err == nil && len(c.recs) > 0 {
		err = c.spill()
	}
	if err != nil {
		for _, rn := range c.runs {
			rn.remove()
		}
		return nil, err
	}
	return c.runs, nil
}

// spill sorts the buffer by partition and key and writes it as a run.
// Records of equal keys are not kept in arrival order (Hadoop does not
// order values either), but the order is deterministic: the same input
// gives the same output.
func (c *collector) spill() error {
	arena := c.arena
	sortRecs(c.recs, c.tmp[:len(c.recs)], arena, c.r.job.Reduces)
	f, err := os.CreateTemp(c.r.tmp, c.name+"-*.run")
	if err != nil {
		return err
	}
	rn := &run{path: f.Name(), sections: make([][2]int64, c.r.job.Reduces)}
	// Records are encoded into one buffer by hand: a bufio.Writer call
	// per header and per record cost more than the encoding.
	buf := make([]byte, 0, 1<<20)
	var pos int64
	var werr error
	flush := func() {
		if werr == nil && len(buf) > 0 {
			_, werr = f.Write(buf)
		}
		buf = buf[:0]
	}
	i := 0
	for p := range rn.sections {
		rn.sections[p][0] = pos
		for ; i < len(c.recs) && int(c.recs[i].part) == p; i++ {
			x := c.recs[i]
			n := int(x.klen + x.vlen)
			if len(buf)+n+2*binary.MaxVarintLen32 > cap(buf) {
				flush()
				if n+2*binary.MaxVarintLen32 > cap(buf) {
					buf = make([]byte, 0, n+2*binary.MaxVarintLen32)
				}
			}
			l0 := len(buf)
			buf = binary.AppendUvarint(buf, uint64(x.klen))
			buf = binary.AppendUvarint(buf, uint64(x.vlen))
			buf = append(buf, arena[x.off:x.off+x.klen+x.vlen]...)
			pos += int64(len(buf) - l0)
		}
		rn.sections[p][1] = pos
	}
	flush()
	err = werr
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(rn.path)
		return err
	}
	c.r.c.spilled.Add(int64(len(c.recs)))
	c.r.c.spillWritten.Add(pos)
	c.runs = append(c.runs, rn)
	c.arena, c.recs = c.arena[:0], c.recs[:0]
	return nil
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cursor reads one run's section of a partition during the merge. It
// parses records in place in a buffer of its own: key and val point into
// it and stay valid until the next call of next.
type cursor struct {
	rd       io.Reader
	buf      []byte
	lo, hi   int // unread bytes are buf[lo:hi]
	eof      bool
	key, val []byte
	prefix   uint64 // of key, as in rec
	order    int    // position of the run among all runs: ties go in map order
	read     int64
}

// fill moves the unread bytes to the front and reads more; it makes the
// buffer larger when a record does not fit.
func (c *cursor) fill(need int) error {
	if need > len(c.buf) {
		nb := make([]byte, max(need, 2*len(c.buf)))
		copy(nb, c.buf[c.lo:c.hi])
		c.buf = nb
	} else {
		copy(c.buf, c.buf[c.lo:c.hi])
	}
	c.hi -= c.lo
	c.lo = 0
	for c.hi < need && !c.eof {
		n, err := c.rd.Read(c.buf[c.hi:])
		c.hi += n
		if err == io.EOF {
			c.eof = true
		} else if err != nil {
			return err
		}
	}
	return nil
}

func (c *cursor) next() (bool, error) {
	for attempt := 0; ; attempt++ {
		b := c.buf[c.lo:c.hi]
		kl, n1 := binary.Uvarint(b)
		if n1 > 0 {
			vl, n2 := binary.Uvarint(b[n1:])
			if n2 > 0 {
				total := n1 + n2 + int(kl) + int(vl)
				if total <= len(b) {
					h := n1 + n2
					c.key, c.val = b[h:h+int(kl)], b[h+int(kl):total]
					c.prefix = keyPrefix(c.key)
					c.lo += total
					c.read += int64(total)
					return true, nil
				}
				if c.eof {
					return false, io.ErrUnexpectedEOF
				}
				if err := c.fill(total); err != nil {
					return false, err
				}
				continue
			}
		}
		if c.eof {
			if len(b) == 0 {
				return false, nil
			}
			if attempt > 0 {
				return false, io.ErrUnexpectedEOF
			}
		}
		if err := c.fill(len(b) + 2*binary.MaxVarintLen64); err != nil {
			return false, err
		}
		if c.eof && c.hi == c.lo {
			return false, nil
		}
	}
}

func less(a, b *cursor) bool {
	if a.prefix != b.prefix {
		return a.prefix < b.prefix
	}
	if len(a.key) > 8 || len(b.key) > 8 {
		if d := bytes.Compare(a.key[min(8, len(a.key)):], b.key[min(8, len(b.key)):]); d != 0 {
			return d < 0
		}
	} else if len(a.key) != len(b.key) {
		return len(a.key) < len(b.key)
	}
	return a.order < b.order
}

// merger yields the records of a partition from all runs in key order.
type merger struct {
	h []*cursor // a binary min-heap
}

func (m *merger) down(i int) {
	h := m.h
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			j = r
		}
		if !less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// openPartition opens the sections of partition p of all runs.
func (r *runner) openPartition(runs [][]*run, p int) (*merger, func(), error) {
	m := &merger{}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	order := 0
	for _, rs := range runs {
		for _, rn := range rs {
			order++
			sec := rn.sections[p]
			if sec[1] == sec[0] {
				continue
			}
			f, err := os.Open(rn.path)
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			files = append(files, f)
			c := &cursor{order: order, rd: io.NewSectionReader(f, sec[0], sec[1]-sec[0]), buf: make([]byte, 256<<10)}
			ok, err := c.next()
			if err != nil {
				closeAll()
				return nil, nil, err
			}
			if ok {
				m.h = append(m.h, c)
			}
		}
	}
	for i := len(m.h)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m, closeAll, nil
}

// each calls fn for every record in order; the slices are valid only
// during the call.
func (m *merger) each(fn func(key, val []byte) error) (read int64, err error) {
	for len(m.h) > 0 {
		top := m.h[0]
		if err := fn(top.key, top.val); err != nil {
			return read, err
		}
		ok, err := top.next()
		if err != nil {
			return read, err
		}
		if !ok {
			read += top.read
			last := len(m.h) - 1
			m.h[0] = m.h[last]
			m.h = m.h[:last]
		}
		if len(m.h) > 0 {
			m.down(0)
		}
	}
	return read, nil
}

// reducePhase runs the reducers, at most Parallel at once.
func (r *runner) reducePhase(ctx context.Context, cancel func(), runs [][]*run) error {
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for p := 0; p < r.job.Reduces; p++ {
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-r.sem }()
			if err := r.reduceTask(ctx, runs, p); err != nil {
				once.Do(func() { first = err; cancel() })
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// reduceTask merges partition p into a reducer and writes its output.
func (r *runner) reduceTask(ctx context.Context, runs [][]*run, p int) error {
	r.c.reduces.Add(1)
	name := attempt("r", p)
	env := append(r.env[:len(r.env):len(r.env)], "mapreduce_task_attempt_id="+name, "mapred_task_id="+name,
		fmt.Sprintf("mapreduce_task_partition=%d", p))
	m, closeRuns, err := r.openPartition(runs, p)
	if err != nil {
		return err
	}
	defer closeRuns()
	t, err := r.startTask(ctx, name, r.redCmd, env)
	if err != nil {
		return err
	}
	outErr := make(chan error, 1)
	go func() { outErr <- r.writeReduceOutput(t.stdout, filepath.Join(r.out, partName(p))) }()

	bw := bufio.NewWriterSize(t.stdin, 1<<20)
	var prev []byte
	var recs, groups int64
	first := true
	read, feedErr := m.each(func(key, val []byte) error {
		recs++
		if first || !bytes.Equal(key, prev) {
			groups++
			prev = append(prev[:0], key...)
			first = false
		}
		bw.Write(key)
		bw.Write(r.redInSep)
		bw.Write(val)
		return bw.WriteByte('\n')
	})
	if feedErr == nil {
		feedErr = bw.Flush()
	}
	if cerr := t.stdin.Close(); feedErr == nil {
		feedErr = cerr
	}
	r.c.redIn.Add(recs)
	r.c.redGroups.Add(groups)
	r.c.spillRead.Add(read)
	readErr := <-outErr
	return t.wait(ctx, feedErr, readErr)
}

// writeReduceOutput writes a reducer's output lines to its part file,
// split into key and value and joined by the output separator.
func (r *runner) writeReduceOutput(rd io.Reader, path string) error {
	f, err := os.Create(path)
	if err != nil {
		io.Copy(io.Discard, rd)
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	// When the separators agree and the key is one field, a line with a
	// separator is written as it is.
	same := bytes.Equal(r.redOutSep, r.outSep) && r.job.ReduceKeyFields == 1
	var n, recs int64
	err = readLines(rd, func(line []byte) error {
		recs++
		if same && bytes.Contains(line, r.outSep) {
			bw.Write(line)
			n += int64(len(line)) + 1
			return bw.WriteByte('\n')
		}
		ke, vs := splitKey(line, r.redOutSep, r.job.ReduceKeyFields)
		k, err := r.writeRecord(bw, line[:ke], line[vs:])
		n += k
		return err
	})
	if err != nil {
		io.Copy(io.Discard, rd)
	}
	r.c.redOut.Add(recs)
	r.c.outBytes.Add(n)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
