// Package streaming runs a Hadoop streaming job on the local machine: the
// map-reduce action's <streaming> over local files, without a cluster.
//
// It does what Hadoop's streaming library does, with the same observable
// results where the two can be compared:
//
//   - input: every file named by the input paths (globs, directories as
//     their files, names starting with "_" or "." skipped, as Hadoop's
//     FileInputFormat does), split one split per file, large files in
//     line-aligned splits of Job.SplitSize bytes; gzip files (".gz") are
//     read whole, decompressed;
//   - map: each split's lines go to a mapper process on its standard
//     input; its output lines are records, the key up to the
//     Job.KeyFields-th Job.MapOutSep (the whole line when there are fewer);
//   - shuffle: records are partitioned by Hadoop's HashPartitioner (the
//     Java hash of the key bytes) into Job.Reduces partitions and sorted by
//     key in byte order (Hadoop's Text comparator), records of equal keys in
//     the order the mappers wrote them; a mapper's records are sorted in
//     runs of Job.SortBuffer bytes spilled to temporary files and merged,
//     so memory stays bounded whatever the data;
//   - reduce: each partition goes, as "key<TAB>value" lines, to a reducer
//     process whose output is the part file part-NNNNN; with no reducers
//     (Job.Reduces 0) each mapper's output is its part file;
//   - output: lines are written key, separator, value (Hadoop's
//     TextOutputFormat, which adds the separator also after a line
//     without one), then an empty _SUCCESS file. The output directory must
//     not exist; the job writes a temporary directory next to it and
//     renames it at the end, so a failed or killed job leaves no output.
//
// Counters are Hadoop's, under both Hadoop 1 and Hadoop 2 group names.
package streaming

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Job describes one streaming job. Paths are local.
type Job struct {
	// Inputs are files, directories or glob patterns.
	Inputs []string `json:"inputs"`
	// Output is the output directory; it must not exist.
	Output string `json:"output"`
	// Mapper and Reducer are command lines, split into words the way
	// Hadoop streaming splits them (SplitCommand). An empty mapper is
	// the identity; an empty reducer too.
	Mapper  string `json:"mapper"`
	Reducer string `json:"reducer,omitempty"`
	// Reduces is the number of reducers; 0 makes a map-only job.
	Reduces int `json:"reduces"`
	// Dir is the working directory of every task: the action's working
	// directory, where its <file>s and <archive>s are.
	Dir string `json:"dir"`
	// Env is added to the tasks' environment (NAME=VALUE).
	Env []string `json:"env,omitempty"`
	// MapOutSep and KeyFields say where a mapper's key ends:
	// stream.map.output.field.separator (default tab) and
	// stream.num.map.output.key.fields (default 1).
	MapOutSep string `json:"mapOutSep,omitempty"`
	KeyFields int    `json:"keyFields,omitempty"`
	// ReduceInSep separates key and value on the reducer's input
	// (stream.reduce.input.field.separator, default tab).
	ReduceInSep string `json:"reduceInSep,omitempty"`
	// ReduceOutSep and ReduceKeyFields split a reducer's output lines
	// (stream.reduce.output.field.separator and
	// stream.num.reduce.output.key.fields).
	ReduceOutSep    string `json:"reduceOutSep,omitempty"`
	ReduceKeyFields int    `json:"reduceKeyFields,omitempty"`
	// OutSep is written between key and value in the part files
	// (mapreduce.output.textoutputformat.separator, default tab).
	OutSep string `json:"outSep,omitempty"`
	// SplitSize is the largest split in bytes (0: DefaultSplitSize).
	SplitSize int64 `json:"splitSize,omitempty"`
	// SortBuffer is the bytes of map output a mapper sorts in memory
	// before it spills a run to disk (0: DefaultSortBuffer).
	SortBuffer int64 `json:"sortBuffer,omitempty"`
	// Parallel bounds the tasks that run at once (0: the number of CPUs).
	Parallel int `json:"parallel,omitempty"`
	// TmpDir holds the spilled runs ("": Dir/tmp); the tasks' standard
	// errors go to Dir/tasklogs.
	TmpDir string `json:"tmpDir,omitempty"`
}

// Defaults of Job.
const (
	DefaultSplitSize  = 32 << 20
	DefaultSortBuffer = 64 << 20
)

// Counters are counter groups: group name -> counter name -> value.
type Counters map[string]map[string]int64

// Hadoop's counter group names.
const (
	GroupTask1     = "org.apache.hadoop.mapred.Task$Counter"
	GroupJob1      = "org.apache.hadoop.mapred.JobInProgress$Counter"
	GroupFS1       = "FileSystemCounters"
	GroupTask2     = "org.apache.hadoop.mapreduce.TaskCounter"
	GroupJob2      = "org.apache.hadoop.mapreduce.JobCounter"
	GroupFS2       = "org.apache.hadoop.mapreduce.FileSystemCounter"
	GroupInputFmt  = "org.apache.hadoop.mapreduce.lib.input.FileInputFormatCounter"
	GroupOutputFmt = "org.apache.hadoop.mapreduce.lib.output.FileOutputFormatCounter"
)

// ErrOutputExists is the error of a job whose output directory exists
// (Hadoop's FileAlreadyExistsException).
var ErrOutputExists = errors.New("output directory already exists")

// ErrInput is the error of input paths that name nothing (Hadoop's
// InvalidInputException).
var ErrInput = errors.New("invalid input")

// TaskError is the failure of a mapper or reducer process.
type TaskError struct {
	Task     string // attempt name, e.g. attempt_local_0001_m_000002_0
	Command  string
	ExitCode int    // -1 when killed by a signal or not started
	Signal   string // the signal that killed it, if any
	Stderr   string // the end of its standard error
	Err      error  // a failure other than the exit status
}

func (e *TaskError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "task %s [%s] failed", e.Task, e.Command)
	switch {
	case e.Err != nil:
		fmt.Fprintf(&b, ": %v", e.Err)
	case e.Signal != "":
		fmt.Fprintf(&b, ": killed by signal [%s]", e.Signal)
	default:
		fmt.Fprintf(&b, " with exit code [%d]", e.ExitCode)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		fmt.Fprintf(&b, "; stderr: %s", s)
	}
	return b.String()
}

// counters are updated by tasks running in parallel.
type counters struct {
	mapIn, mapInBytes, mapOut, mapOutBytes atomic.Int64
	redIn, redGroups, redOut, redOutBytes  atomic.Int64
	spilled, spillRead, spillWritten       atomic.Int64
	maps, reduces                          atomic.Int64
	outBytes                               atomic.Int64
}

func (c *counters) groups() Counters {
	task := map[string]int64{
		"MAP_INPUT_RECORDS":      c.mapIn.Load(),
		"MAP_OUTPUT_RECORDS":     c.mapOut.Load(),
		"MAP_OUTPUT_BYTES":       c.mapOutBytes.Load(),
		"REDUCE_INPUT_RECORDS":   c.redIn.Load(),
		"REDUCE_INPUT_GROUPS":    c.redGroups.Load(),
		"REDUCE_OUTPUT_RECORDS":  c.redOut.Load(),
		"REDUCE_SHUFFLE_BYTES":   c.spillRead.Load(),
		"SPILLED_RECORDS":        c.spilled.Load(),
		"COMBINE_INPUT_RECORDS":  0,
		"COMBINE_OUTPUT_RECORDS": 0,
	}
	task1 := map[string]int64{"MAP_INPUT_BYTES": c.mapInBytes.Load()}
	for k, v := range task {
		task1[k] = v
	}
	job := map[string]int64{"TOTAL_LAUNCHED_MAPS": c.maps.Load(), "TOTAL_LAUNCHED_REDUCES": c.reduces.Load()}
	fsc := map[string]int64{
		"FILE_BYTES_READ":    c.mapInBytes.Load() + c.spillRead.Load(),
		"FILE_BYTES_WRITTEN": c.spillWritten.Load() + c.outBytes.Load(),
	}
	cp := func(m map[string]int64) map[string]int64 {
		out := make(map[string]int64, len(m))
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	return Counters{
		GroupTask1:     task1,
		GroupTask2:     task,
		GroupJob1:      job,
		GroupJob2:      cp(job),
		GroupFS1:       fsc,
		GroupFS2:       cp(fsc),
		GroupInputFmt:  {"BYTES_READ": c.mapInBytes.Load()},
		GroupOutputFmt: {"BYTES_WRITTEN": c.outBytes.Load()},
	}
}

// runner is one run of a job.
type runner struct {
	job  *Job
	c    counters
	tmp  string // spilled runs
	logs string // task stderr files
	out  string // temporary output directory
	env  []string
	sem  chan struct{}
	// buffers are the sort buffers of finished mappers, for reuse.
	buffers chan sortBuffer

	mapCmd, redCmd []string
	mapOutSep      []byte
	redInSep       []byte
	redOutSep      []byte
	outSep         []byte
}

// Run runs the job and returns its counters. When ctx ends, the tasks are
// killed and the temporary files removed; the output never appears.
func Run(ctx context.Context, job *Job) (Counters, error) {
	r := &runner{job: job}
	ok := false
	defer func() {
		if r.tmp != "" {
			os.RemoveAll(r.tmp)
		}
		if !ok && r.out != "" {
			os.RemoveAll(r.out)
		}
	}()
	if err := r.init(); err != nil {
		return nil, err
	}
	// Hadoop checks the output before it lists the input.
	if err := r.prepareOutput(); err != nil {
		return nil, err
	}
	splits, err := ListSplits(job.Inputs, r.splitSize())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	runs, err := r.mapPhase(ctx, cancel, splits)
	if err != nil {
		return nil, err
	}
	if job.Reduces > 0 {
		if err := r.reducePhase(ctx, cancel, runs); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(r.out, "_SUCCESS"), nil, 0o644); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The rename is the commit: the output is there whole, or not at all.
	// It fails when someone created the output directory meanwhile.
	if err := os.Rename(r.out, job.Output); err != nil {
		if exists(job.Output) {
			return nil, fmt.Errorf("%w: Output directory %s already exists", ErrOutputExists, job.Output)
		}
		return nil, err
	}
	ok = true
	return r.c.groups(), nil
}

func (r *runner) splitSize() int64 {
	if r.job.SplitSize > 0 {
		return r.job.SplitSize
	}
	return DefaultSplitSize
}

func (r *runner) init() error {
	j := r.job
	if j.Output == "" {
		return errors.New("no output directory (mapred.output.dir) given")
	}
	if len(j.Inputs) == 0 {
		return fmt.Errorf("%w: no input paths (mapred.input.dir) given", ErrInput)
	}
	if j.Reduces < 0 {
		return fmt.Errorf("number of reducers [%d] is negative", j.Reduces)
	}
	var err error
	if r.mapCmd, err = SplitCommand(j.Mapper); err != nil {
		return fmt.Errorf("mapper: %w", err)
	}
	if r.redCmd, err = SplitCommand(j.Reducer); err != nil {
		return fmt.Errorf("reducer: %w", err)
	}
	or := func(s, def string) []byte {
		if s == "" {
			s = def
		}
		return []byte(s)
	}
	r.mapOutSep = or(j.MapOutSep, "\t")
	r.redInSep = or(j.ReduceInSep, "\t")
	r.redOutSep = or(j.ReduceOutSep, "\t")
	r.outSep = or(j.OutSep, "\t")
	if j.KeyFields <= 0 {
		j.KeyFields = 1
	}
	if j.ReduceKeyFields <= 0 {
		j.ReduceKeyFields = 1
	}
	if j.SortBuffer <= 0 {
		j.SortBuffer = DefaultSortBuffer
	}
	par := j.Parallel
	if par <= 0 {
		par = runtime.NumCPU()
	}
	r.sem = make(chan struct{}, par)
	r.buffers = make(chan sortBuffer, par)
	if j.Dir == "" {
		if j.Dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	tmpRoot := j.TmpDir
	if tmpRoot == "" {
		tmpRoot = filepath.Join(j.Dir, "tmp")
	}
	if err := os.MkdirAll(tmpRoot, 0o755); err != nil {
		return err
	}
	if r.tmp, err = os.MkdirTemp(tmpRoot, "spill-"); err != nil {
		return err
	}
	r.logs = filepath.Join(j.Dir, "tasklogs")
	if err := os.MkdirAll(r.logs, 0o755); err != nil {
		return err
	}
	r.env = append(os.Environ(), j.Env...)
	return nil
}

// prepareOutput refuses an existing output directory and creates the
// temporary one beside it (same file system, so the final rename works).
func (r *runner) prepareOutput() error {
	out := filepath.Clean(r.job.Output)
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("%w: Output directory %s already exists", ErrOutputExists, out)
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return err
	}
	r.out = tmp
	return nil
}

// partName is the name of part file i, as Hadoop names them.
func partName(i int) string { return fmt.Sprintf("part-%05d", i) }

// mapPhase runs a mapper per split, at most Parallel at once. Map-only,
// their outputs are the part files; otherwise it returns each mapper's
// spilled runs.
func (r *runner) mapPhase(ctx context.Context, cancel func(), splits []Split) ([][]*run, error) {
	runs := make([][]*run, len(splits))
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	fail := func(err error) {
		once.Do(func() { first = err; cancel() })
	}
	for i, sp := range splits {
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
			rs, err := r.mapTask(ctx, i, sp)
			if err != nil {
				fail(err)
				return
			}
			runs[i] = rs
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return runs, nil
}

// attempt names a task attempt the way Hadoop's local runner does.
func attempt(kind string, i int) string {
	return fmt.Sprintf("attempt_local_0001_%s_%06d_0", kind, i)
}

// task is one running mapper or reducer process.
type task struct {
	name    string
	argv    []string
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stdout  io.ReadCloser
	errPath string
}

// startTask starts argv (nil: the identity, cat) in the job's directory.
func (r *runner) startTask(ctx context.Context, name string, argv []string, env []string) (*task, error) {
	if len(argv) == 0 {
		argv = []string{"cat"}
	}
	t := &task{name: name, argv: argv, errPath: filepath.Join(r.logs, name+".stderr")}
	path, err := lookPath(r.job.Dir, argv[0], env)
	if err != nil {
		return nil, &TaskError{Task: name, Command: strings.Join(argv, " "), ExitCode: -1, Err: err}
	}
	errf, err := os.Create(t.errPath)
	if err != nil {
		return nil, err
	}
	defer errf.Close()
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = r.job.Dir
	cmd.Env = env
	cmd.Stderr = errf
	// A task that leaves children holding its pipes must not hang the
	// job once it has been killed.
	cmd.WaitDelay = 5 * time.Second
	if t.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if t.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	growPipe(t.stdin)
	growPipe(t.stdout)
	if err := cmd.Start(); err != nil {
		return nil, &TaskError{Task: name, Command: strings.Join(argv, " "), ExitCode: -1, Err: err}
	}
	t.cmd = cmd
	return t, nil
}

// wait waits for the task and turns a failure into a TaskError. feedErr
// and readErr are the errors of writing its input and reading its output.
func (t *task) wait(ctx context.Context, feedErr, readErr error) error {
	err := t.cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	te := &TaskError{Task: t.name, Command: strings.Join(t.argv, " "), ExitCode: -1, Stderr: tailOf(t.errPath, 800)}
	var ee *exec.ExitError
	switch {
	case readErr != nil:
		// Reading its output failed first (the task may have died of
		// the closed pipe since): that is the cause.
		te.Err, te.ExitCode = readErr, 0
		return te
	case errors.As(err, &ee):
		te.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			te.Signal = ws.Signal().String()
		}
		return te
	case err != nil:
		te.Err = err
		return te
	case feedErr != nil && !errors.Is(feedErr, syscall.EPIPE):
		// A task may stop reading early (head); Hadoop's
		// stream.minRecWrittenToEnableSkip aside, that is not a failure.
		te.Err, te.ExitCode = feedErr, 0
		return te
	}
	return nil
}

func tailOf(p string, n int64) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := fi.Size() - n
	prefix := ""
	if off < 0 {
		off = 0
	} else if off > 0 {
		prefix = "..."
	}
	b, _ := io.ReadAll(io.NewSectionReader(f, off, n))
	return prefix + string(b)
}

// mapTask runs the mapper of one split.
func (r *runner) mapTask(ctx context.Context, i int, sp Split) ([]*run, error) {
	r.c.maps.Add(1)
	name := attempt("m", i)
	env := append(r.env[:len(r.env):len(r.env)],
		"mapreduce_map_input_file="+sp.Path, "map_input_file="+sp.Path,
		fmt.Sprintf("mapreduce_map_input_start=%d", sp.Start), fmt.Sprintf("mapreduce_map_input_length=%d", sp.Length),
		"mapreduce_task_attempt_id="+name, "mapred_task_id="+name)
	t, err := r.startTask(ctx, name, r.mapCmd, env)
	if err != nil {
		return nil, err
	}
	feedErr := make(chan error, 1)
	go func() {
		err := r.feedSplit(sp, t.stdin)
		if cerr := t.stdin.Close(); err == nil {
			err = cerr
		}
		feedErr <- err
	}()
	var runs []*run
	var readErr error
	if r.job.Reduces == 0 {
		readErr = r.writeMapOnly(t.stdout, filepath.Join(r.out, partName(i)))
	} else {
		hint := sp.Length
		if sp.Gzip {
			hint = -1 // the size of what it holds is not known
		}
		runs, readErr = r.collect(t.stdout, name, hint)
	}
	if readErr != nil {
		// Unblock the mapper: nobody reads its output any more.
		t.stdout.Close()
	}
	if err := t.wait(ctx, <-feedErr, readErr); err != nil {
		for _, rn := range runs {
			rn.remove()
		}
		return nil, err
	}
	return runs, nil
}

// feedSplit copies the split's lines to w and counts them. A last line
// without a newline gets one, as each record does in Hadoop streaming.
func (r *runner) feedSplit(sp Split, w io.Writer) error {
	rc, err := sp.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	buf := make([]byte, 256<<10)
	var fixed []byte
	var last byte = '\n'
	var n, lines int64
	cr := false // the previous chunk ended in '\r'
	for {
		k, err := rc.Read(buf)
		if k > 0 {
			chunk := buf[:k]
			n += int64(k)
			if cr || bytes.IndexByte(chunk, '\r') >= 0 {
				fixed, cr = lineEnds(fixed[:0], chunk, cr)
				chunk = fixed
			}
			if len(chunk) == 0 {
				continue
			}
			lines += int64(bytes.Count(chunk, []byte{'\n'}))
			last = chunk[len(chunk)-1]
			if _, werr := w.Write(chunk); werr != nil {
				r.c.mapIn.Add(lines)
				r.c.mapInBytes.Add(n)
				return werr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if last != '\n' {
		lines++
		if _, err := w.Write([]byte{'\n'}); err != nil {
			return err
		}
	}
	r.c.mapIn.Add(lines)
	r.c.mapInBytes.Add(n)
	return nil
}

// lineEnds appends src to dst with Hadoop's line ends made '\n': "\r\n"
// and a lone '\r' end a line too (LineRecordReader). cr says that the
// previous chunk ended in '\r' (already written as '\n'); the result says
// whether this one does.
func lineEnds(dst, src []byte, cr bool) ([]byte, bool) {
	for _, c := range src {
		switch {
		case c == '\n' && cr:
			// the '\n' of a "\r\n" split between chunks or not
		case c == '\r':
			dst = append(dst, '\n')
		default:
			dst = append(dst, c)
		}
		cr = c == '\r'
	}
	return dst, cr
}

// splitKey returns where the key of line ends and where its value starts:
// after the n-th separator; the whole line is the key when it has fewer.
func splitKey(line, sep []byte, n int) (keyEnd, valStart int) {
	pos := 0
	for k := 0; k < n; k++ {
		i := bytes.Index(line[pos:], sep)
		if i < 0 {
			return len(line), len(line)
		}
		if k == n-1 {
			return pos + i, pos + i + len(sep)
		}
		pos += i + len(sep)
	}
	return len(line), len(line)
}

// readLines calls fn for each line of rd without its newline, reusing
// one buffer: fn must not keep the slice.
func readLines(rd io.Reader, fn func(line []byte) error) error {
	br := bufio.NewReaderSize(rd, 1<<20)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if long != nil {
			long = append(long, line...)
			line = long
		}
		if len(line) > 0 {
			if line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			if ferr := fn(line); ferr != nil {
				return ferr
			}
		}
		long = long[:0:0]
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeMapOnly writes a mapper's output lines to its part file.
func (r *runner) writeMapOnly(rd io.Reader, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var n, recs int64
	err = readLines(rd, func(line []byte) error {
		recs++
		ke, vs := splitKey(line, r.mapOutSep, r.job.KeyFields)
		k, err := r.writeRecord(bw, line[:ke], line[vs:])
		n += k
		return err
	})
	r.c.mapOut.Add(recs)
	r.c.mapOutBytes.Add(n)
	r.c.outBytes.Add(n)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeRecord writes key, the output separator, value and a newline, as
// TextOutputFormat does, and returns the bytes written.
func (r *runner) writeRecord(w *bufio.Writer, key, val []byte) (int64, error) {
	w.Write(key)
	w.Write(r.outSep)
	w.Write(val)
	err := w.WriteByte('\n')
	return int64(len(key) + len(r.outSep) + len(val) + 1), err
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
