package effect

import (
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// die leaves a journal as a killed process does: what it wrote stays, no
// compaction, no end lines.
func (j *crashJournal) die() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.f.Close()
	j.f = nil
}

// TestJournalDeaths runs lives of a process against one journal file: each
// life opens the journal, begins and ends effects, and then dies (leaving
// what it wrote) or closes. The deaths counted when the next life opens
// it are each effect's deaths in flight, carried across lives, reset by an
// end; compaction (at open, at close, and past journalCompactBytes) keeps
// the counts.
func TestJournalDeaths(t *testing.T) {
	type life struct {
		ops   string // "b1 p1 b1 e1 b2": begin 1, pause 1, begin 1, end 1, begin 2; "fill" writes past the compaction size
		close bool   // a graceful stop; else a death
	}
	tests := []struct {
		name  string
		lives []life
		want  map[int64]int
	}{
		{"no journal yet", nil, map[int64]int{}},
		{"one death", []life{{ops: "b1 b2 e2"}}, map[int64]int{1: 1}},
		{"two deaths quarantine", []life{{ops: "b1"}, {ops: "b1"}}, map[int64]int{1: 2}},
		{"performed once between deaths", []life{{ops: "b1"}, {ops: "b1 e1 b2"}}, map[int64]int{2: 1}},
		{"count carried over a life that did not perform it", []life{{ops: "b1"}, {ops: "b2 e2"}, {ops: "b1"}}, map[int64]int{1: 2}},
		{"graceful stop is no death", []life{{ops: "b2 e2 b1 e1", close: true}}, map[int64]int{}},
		{"graceful stop keeps counts", []life{{ops: "b1 b2"}, {ops: "b3 e3", close: true}}, map[int64]int{1: 1, 2: 1}},
		{"abandoned at a stop", []life{{ops: "b1"}, {ops: "b1 e1", close: true}}, map[int64]int{}},
		{"compaction keeps counts and what is in flight", []life{{ops: "b7"}, {ops: "b7 b8 fill"}}, map[int64]int{7: 2, 8: 1}},
		{"compaction drops what ended", []life{{ops: "b7"}, {ops: "b7 e7 b8 fill e8"}}, map[int64]int{}},
		{"the same effect twice at once", []life{{ops: "b1 b1 e1"}}, map[int64]int{1: 1}},
		{"paused at a death", []life{{ops: "b1"}, {ops: "b1 p1"}}, map[int64]int{1: 1}},
		{"paused and resumed", []life{{ops: "b1"}, {ops: "b1 p1 b1"}}, map[int64]int{1: 2}},
		{"paused, resumed, ended", []life{{ops: "b1"}, {ops: "b1 p1 b1 e1"}}, map[int64]int{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "effects.journal")
			for _, l := range tc.lives {
				j, err := openJournal(path, t.Logf)
				if err != nil {
					t.Fatal(err)
				}
				for _, op := range strings.Fields(l.ops) {
					if op == "fill" {
						for i := 0; i < journalCompactBytes/10; i++ {
							j.Begin(1000 + int64(i))
							j.End(1000 + int64(i))
						}
						continue
					}
					id, _ := strconv.ParseInt(op[1:], 10, 64)
					switch op[0] {
					case 'b':
						j.Begin(id)
					case 'p':
						j.Pause(id)
					default:
						j.End(id)
					}
				}
				if l.close {
					if err := j.Close(); err != nil {
						t.Fatal(err)
					}
				} else {
					j.die()
				}
			}
			j, err := openJournal(path, t.Logf)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			if got := j.Suspects(); !maps.Equal(got, tc.want) {
				t.Errorf("deaths %v, want %v", got, tc.want)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() > journalCompactBytes+64 {
				t.Errorf("journal: %v, %v; want at most %d bytes", fi, err, journalCompactBytes)
			}
		})
	}
}

// TestJournalRead: a journal with damaged or foreign lines still opens;
// what it cannot read is skipped, and Keep drops the counts of effects no
// longer pending.
func TestJournalRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "effects.journal")
	content := "deaths 5 1\nbegin 5\ngarbage\nbegin x\nend\ndeaths 6 zero\nbegin 6\nbegin 9\nend 9\n" +
		"begin " + strings.Repeat("7", 5000) + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := openJournal(path, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	// The over-long line makes it a journal this engine did not write.
	if got := j.Suspects(); len(got) != 0 {
		t.Errorf("deaths %v from a foreign file, want none", got)
	}
	j.Close()

	if err := os.WriteFile(path, []byte(strings.SplitAfter(content, "end 9\n")[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	if j, err = openJournal(path, t.Logf); err != nil {
		t.Fatal(err)
	}
	if got, want := j.Suspects(), map[int64]int{5: 2, 6: 1}; !maps.Equal(got, want) {
		t.Errorf("deaths %v, want %v", got, want)
	}
	j.Keep(map[int64]bool{6: true})
	j.Close()
	data, _ := os.ReadFile(path)
	if got := string(data); got != "deaths 6 1\n" {
		t.Errorf("journal after Keep and Close: %q", got)
	}
}

// BenchmarkJournal is the journal's cost per effect performed: a begin and
// an end line, each one write(2), with a compaction every 1 MiB.
func BenchmarkJournal(b *testing.B) {
	j, err := openJournal(filepath.Join(b.TempDir(), "effects.journal"), b.Logf)
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	for id := int64(1); b.Loop(); id++ {
		j.Begin(id)
		j.End(id)
	}
}
