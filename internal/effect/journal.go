package effect

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The crash journal finds the effects that kill the server. Effects are
// committed before they are performed and performed again at start-up
// while pending, which is what makes a crash lose nothing; but an effect
// whose performance itself kills the process (memory exhausted, a fatal
// runtime error, a panic outside an executor) is then performed again at
// every start, and kills every start. The store cannot tell: the process
// dies before it could write anything. So the engine appends a line to a
// file of its data directory before it performs an effect and another
// after, without fsync (a killed process keeps what it wrote to the page
// cache; only a machine crash loses it, and a machine crash is not what
// this is about). At start-up every effect begun and not ended was in
// flight when the previous process died; the deaths are counted per
// effect across restarts, and an effect in flight at QuarantineDeaths
// deaths is quarantined (quarantine.go) instead of performed.
//
// The file holds lines of three kinds:
//
//	begin <effect id>       performing it (again, after a pause)
//	pause <effect id>       waiting, harmlessly (for an action slot)
//	end <effect id>         performed (or abandoned by a graceful shutdown)
//	deaths <effect id> <n>  in flight at n deaths so far, not ended since
//
// It is rewritten with only the deaths and the effects in flight at
// start-up, at Close, and whenever it has grown past journalCompactBytes,
// so it never grows without bound. One server uses a data directory at a
// time (the directory's lock), so one file name serves.

// CrashJournalFile is the crash journal's name in a data directory.
const CrashJournalFile = "effects.journal"

// QuarantineDeaths is how many deaths of the server an effect may be in
// flight at before it is quarantined. One death may be a coincidence (a
// machine running out of memory for other reasons, a kill -9); a second
// while the same effect is replayed is not.
const QuarantineDeaths = 2

// journalCompactBytes is the size past which the journal is rewritten.
const journalCompactBytes = 1 << 20

// crashJournal is the open journal of one engine.
type crashJournal struct {
	path string

	mu     sync.Mutex
	f      *os.File
	size   int64         // bytes in the file
	open   map[int64]int // effects being performed: begun, not ended
	deaths map[int64]int // deaths each effect was in flight at, until it ends
	failed bool          // a write failed: said once in the server log
	logf   func(format string, args ...any)
}

// openJournal reads the journal at path, counts a death for every effect
// begun and not ended, and rewrites it with the counts: the journal of the
// process from now on. A missing file is an empty journal.
func openJournal(path string, logf func(format string, args ...any)) (*crashJournal, error) {
	j := &crashJournal{path: path, open: map[int64]int{}, deaths: map[int64]int{}, logf: logf}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		inFlight, err := readJournal(f, j.deaths)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("effect journal %s: %w", path, err)
		}
		for id := range inFlight {
			j.deaths[id]++
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.compactLocked(); err != nil {
		return nil, err
	}
	return j, nil
}

// readJournal reads journal lines into deaths (the carried counts, reset
// by an end) and returns the effects begun and not ended (an effect
// performed twice at once is begun twice). Lines it does not understand
// are skipped: a journal is advice, and a damaged line must not stop the
// server.
func readJournal(f *os.File, deaths map[int64]int) (map[int64]int, error) {
	open := map[int64]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 4096)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		id, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		switch {
		case fields[0] == "begin" && len(fields) == 2:
			open[id]++
		case (fields[0] == "end" || fields[0] == "pause") && len(fields) == 2:
			if open[id]--; open[id] <= 0 {
				delete(open, id)
			}
			if fields[0] == "end" {
				delete(deaths, id)
			}
		case fields[0] == "deaths" && len(fields) == 3:
			if n, err := strconv.Atoi(fields[2]); err == nil && n > 0 {
				deaths[id] = n
			}
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		// Not a journal this engine wrote: start afresh.
		clear(deaths)
		return nil, nil
	}
	return open, sc.Err()
}

// Deaths returns how many deaths of the server the effect was in flight
// at, since it last ended.
func (j *crashJournal) Deaths(id int64) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.deaths[id]
}

// Suspects returns the effects in flight at a death that have not ended
// since, with their counts.
func (j *crashJournal) Suspects() map[int64]int {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make(map[int64]int, len(j.deaths))
	for id, n := range j.deaths {
		out[id] = n
	}
	return out
}

// Begin records that the effect is being performed.
func (j *crashJournal) Begin(id int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.open[id]++
	j.writeLocked("begin " + strconv.FormatInt(id, 10) + "\n")
}

// Pause records that the effect, being performed, waits for something
// that cannot kill the process (a free action slot): a death meanwhile is
// not counted against it. Its count stays; Begin resumes it.
func (j *crashJournal) Pause(id int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.open[id]--; j.open[id] <= 0 {
		delete(j.open, id)
	}
	j.writeLocked("pause " + strconv.FormatInt(id, 10) + "\n")
}

// End records that the effect's performance returned, whatever its
// outcome; its count of deaths starts again from zero.
func (j *crashJournal) End(id int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.open[id]--; j.open[id] <= 0 {
		delete(j.open, id)
	}
	delete(j.deaths, id)
	j.writeLocked("end " + strconv.FormatInt(id, 10) + "\n")
}

// Keep drops the counts of effects that are not among pending (marked
// done by someone else, or gone with their job): they will not be
// performed here again.
func (j *crashJournal) Keep(pending map[int64]bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	changed := false
	for id := range j.deaths {
		if !pending[id] {
			delete(j.deaths, id)
			changed = true
		}
	}
	if changed {
		j.compactOrLog()
	}
}

// Close rewrites the journal with what it must carry (the counts; nothing
// is in flight after a graceful stop) and closes it.
func (j *crashJournal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	err := j.compactLocked()
	if j.f != nil {
		if cerr := j.f.Close(); err == nil {
			err = cerr
		}
		j.f = nil
	}
	return err
}

// writeLocked appends a line, compacting the file when it has grown too
// large. A failed write (a full disk) loses the line: a missing begin only
// hides a death, and a missing end is repaired by the next compaction or
// counted once, which alone quarantines nothing.
func (j *crashJournal) writeLocked(line string) {
	if j.f == nil {
		return
	}
	n, err := j.f.WriteString(line)
	j.size += int64(n)
	if err != nil {
		j.failedLocked(err)
		return
	}
	if j.size > journalCompactBytes {
		j.compactOrLog()
	}
}

func (j *crashJournal) compactOrLog() {
	if err := j.compactLocked(); err != nil {
		j.failedLocked(err)
	}
}

func (j *crashJournal) failedLocked(err error) {
	if !j.failed {
		j.failed = true
		j.logf("gozie: effect journal %s: %v (effects that kill the server may be missed until it works again)", j.path, err)
	}
}

// compactLocked writes the carried counts and the effects in flight to a
// new file and puts it in the journal's place: a process killed meanwhile
// leaves the old journal, whole, or the new one.
func (j *crashJournal) compactLocked() error {
	var b strings.Builder
	for _, id := range sortedKeys(j.deaths) {
		fmt.Fprintf(&b, "deaths %d %d\n", id, j.deaths[id])
	}
	for _, id := range sortedKeys(j.open) {
		for range j.open[id] {
			fmt.Fprintf(&b, "begin %d\n", id)
		}
	}
	tmp := j.path + ".new"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, j.path); err != nil {
		os.Remove(tmp)
		return err
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	if j.f != nil {
		j.f.Close()
	}
	j.f, j.size, j.failed = f, int64(b.Len()), false
	return nil
}

func sortedKeys(m map[int64]int) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// JournalSuspects reads the journal at path as a start would, and returns
// the effects in flight at a death with their counts. It rewrites the file
// as a start does.
func JournalSuspects(path string, logf func(format string, args ...any)) (map[int64]int, error) {
	j, err := openJournal(path, logf)
	if err != nil {
		return nil, err
	}
	defer j.Close()
	return j.Suspects(), nil
}
