package cli

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/launch"
)

// `gozie run -v`: the stdout and stderr of each step, as it writes them,
// each line after the step's node name, among the progress lines.

// followInterval is how often running steps' output files are read.
const followInterval = 200 * time.Millisecond

// maxFollowRead bounds what one read of a step's output takes, so that a
// step printing without end does not hold the progress printer (and the
// engine, which calls it) for long; the rest comes on the next read.
const maxFollowRead = 256 << 10

// outputTail is the part of one output file of a step not printed yet.
type outputTail struct {
	path    string
	label   string // what the lines are printed after: "[node]" or "[node stderr]"
	off     int64
	partial []byte // a line without its newline yet
}

// stepOutput is what is followed of one attempt of a step.
type stepOutput struct {
	streams [2]*outputTail // stdout, stderr
}

// followStep starts following the output of an attempt of a step. key
// names the attempt; dir is its work directory; prefix indents the lines
// of a sub-workflow's steps. Called with p.mu held.
func (p *progress) followStep(key, dir, prefix, node string) {
	if !p.verbose || p.following[key] != nil {
		return
	}
	p.following[key] = &stepOutput{streams: [2]*outputTail{
		{path: filepath.Join(dir, launch.StdoutFile), label: prefix + "[" + node + "]"},
		{path: filepath.Join(dir, launch.StderrFile), label: prefix + "[" + node + " stderr]"},
	}}
}

// unfollowStep prints what the attempt wrote since the last read,
// unfinished last lines included, and stops following it: its end line
// comes next. Called with p.mu held.
func (p *progress) unfollowStep(key string) {
	s := p.following[key]
	if s == nil {
		return
	}
	delete(p.following, key)
	for _, t := range s.streams {
		for p.readTail(t) {
		}
		if len(t.partial) > 0 {
			fmt.Fprintf(p.w, "         %s %s\n", t.label, t.partial)
			t.partial = nil
		}
	}
}

// follow turns -v on: steps are followed from now on, and their output
// read every followInterval until the returned function is called. Each
// step's last lines are printed at its end line (note), so by the time
// the job has ended nothing is left to read.
func (p *progress) follow() (stop func()) {
	p.mu.Lock()
	p.verbose = true
	p.mu.Unlock()
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		p.followOutput(quit)
	}()
	return func() { close(quit); <-done }
}

// followOutput reads the followed steps' output every followInterval
// until stop is closed.
func (p *progress) followOutput(stop <-chan struct{}) {
	tick := time.NewTicker(followInterval)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		p.mu.Lock()
		keys := make([]string, 0, len(p.following))
		for k := range p.following {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, t := range p.following[k].streams {
				p.readTail(t)
			}
		}
		p.mu.Unlock()
	}
}

// readTail prints the complete lines written to t's file since the last
// read; it reports whether it stopped at maxFollowRead with more to read.
// The file is opened as the server opens a step's output
// (launch.OpenOutput: no link followed, no FIFO waited on); one that does
// not exist yet has nothing to print.
func (p *progress) readTail(t *outputTail) bool {
	f, err := launch.OpenOutput(t.path)
	if err != nil {
		return false
	}
	defer f.Close()
	if _, err := f.Seek(t.off, io.SeekStart); err != nil {
		return false
	}
	buf, err := io.ReadAll(io.LimitReader(f, maxFollowRead))
	if err != nil || len(buf) == 0 {
		return false
	}
	t.off += int64(len(buf))
	data := append(t.partial, buf...)
	last := bytes.LastIndexByte(data, '\n')
	if last < 0 {
		t.partial = data
		return len(buf) == maxFollowRead
	}
	for _, line := range strings.Split(string(data[:last]), "\n") {
		fmt.Fprintf(p.w, "         %s %s\n", t.label, strings.TrimSuffix(line, "\r"))
	}
	t.partial = append([]byte(nil), data[last+1:]...)
	return len(buf) == maxFollowRead
}
