package streaming

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// wordMapper prints each word of its input on a line of its own with a
// count of 1; wordReducer sums the counts of each word (its input sorted
// by word, as the shuffle must deliver it).
const (
	wordMapper  = `#!/bin/sh` + "\n" + `tr -s ' ' '\n' | grep -v '^$' | sed 's/$/	1/'` + "\n"
	wordReducer = `#!/bin/sh` + "\n" + `awk -F '\t' 'NR>1 && $1!=w {print w "\t" n; n=0} {w=$1; n+=$2} END {if (NR>0) print w "\t" n}'` + "\n"
)

// setup writes the scripts and input files and returns the task
// directory and the input directory.
func setup(t testing.TB, inputs map[string]string) (dir, in string) {
	t.Helper()
	root := t.TempDir()
	dir = filepath.Join(root, "work")
	in = filepath.Join(root, "in")
	for _, d := range []string{dir, in} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "mapper.sh"), []byte(wordMapper), 0o755)
	os.WriteFile(filepath.Join(dir, "reducer.sh"), []byte(wordReducer), 0o755)
	for name, text := range inputs {
		p := filepath.Join(in, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, in
}

// outputLines returns the lines of all part files, sorted, and checks
// the part files and _SUCCESS are there.
func outputLines(t *testing.T, out string, parts int) []string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(out, "_SUCCESS")); err != nil {
		t.Errorf("no _SUCCESS: %v", err)
	}
	var lines []string
	for i := 0; i < parts; i++ {
		b, err := os.ReadFile(filepath.Join(out, partName(i)))
		if err != nil {
			t.Fatalf("part file %d: %v", i, err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(out, partName(parts))); err == nil {
		t.Errorf("more than %d part files", parts)
	}
	sort.Strings(lines)
	return lines
}

const text1 = "the quick brown fox\njumps over the lazy dog\n"
const text2 = "the dog sleeps\n\nthe end" // no final newline

func TestRun(t *testing.T) {
	wc := []string{"brown\t1", "dog\t2", "end\t1", "fox\t1", "jumps\t1", "lazy\t1", "over\t1", "quick\t1", "sleeps\t1", "the\t4"}
	tests := []struct {
		name   string
		inputs map[string]string
		job    func(j *Job, in string)
		parts  int
		want   []string
		// counters checked in the Hadoop 1 task group
		counters map[string]int64
		groups   int64
	}{
		{name: "word count, one reducer", inputs: map[string]string{"a.txt": text1, "b.txt": text2},
			job:   func(j *Job, in string) { j.Reducer = "reducer.sh"; j.Reduces = 1 },
			parts: 1, want: wc,
			counters: map[string]int64{"MAP_INPUT_RECORDS": 5, "MAP_OUTPUT_RECORDS": 14, "REDUCE_INPUT_RECORDS": 14, "REDUCE_INPUT_GROUPS": 10, "REDUCE_OUTPUT_RECORDS": 10}},
		{name: "word count, three reducers, tiny splits and sort buffer", inputs: map[string]string{"a.txt": text1, "b.txt": text2},
			job: func(j *Job, in string) {
				j.Reducer = "reducer.sh"
				j.Reduces = 3
				j.SplitSize = 10  // several splits per file
				j.SortBuffer = 64 // several runs per mapper
			},
			parts: 3, want: wc,
			counters: map[string]int64{"MAP_INPUT_RECORDS": 5, "MAP_OUTPUT_RECORDS": 14, "REDUCE_INPUT_RECORDS": 14, "REDUCE_INPUT_GROUPS": 10, "REDUCE_OUTPUT_RECORDS": 10}},
		{name: "map only", inputs: map[string]string{"a.txt": text1},
			job:   func(j *Job, in string) { j.Reduces = 0 },
			parts: 1, want: []string{"brown\t1", "dog\t1", "fox\t1", "jumps\t1", "lazy\t1", "over\t1", "quick\t1", "the\t1", "the\t1"},
			counters: map[string]int64{"MAP_INPUT_RECORDS": 2, "MAP_OUTPUT_RECORDS": 9, "REDUCE_INPUT_RECORDS": 0}},
		{name: "identity map and reduce add a tab after lines without one", inputs: map[string]string{"a.txt": "b x\na\n"},
			job:   func(j *Job, in string) { j.Mapper = "cat"; j.Reducer = "cat"; j.Reduces = 1 },
			parts: 1, want: []string{"a\t", "b x\t"}},
		{name: "two key fields", inputs: map[string]string{"a.txt": "k\t2\tz\nk\t1\ty\nk\t1\tx\n"},
			job:   func(j *Job, in string) { j.Mapper = "cat"; j.Reducer = "cat"; j.Reduces = 1; j.KeyFields = 2 },
			parts: 1, want: []string{"k\t1\tx", "k\t1\ty", "k\t2\tz"}, groups: 2},
		{name: "map output separator", inputs: map[string]string{"a.txt": "b.2.x\na.1.y\na.1.z\n"},
			job: func(j *Job, in string) {
				j.Mapper, j.Reducer, j.Reduces = "cat", "cat", 1
				j.MapOutSep, j.KeyFields = ".", 2
			},
			// The reducer sees key TAB value; with one tab the line is written as it is.
			parts: 1, want: []string{"a.1\ty", "a.1\tz", "b.2\tx"}, groups: 2},
		{name: "quoted mapper arguments", inputs: map[string]string{"a.txt": "x\n"},
			job:   func(j *Job, in string) { j.Mapper = `sh -c 'echo "a b"; cat'`; j.Reducer = "cat"; j.Reduces = 1 },
			parts: 1, want: []string{"a b\t", "x\t"}},
		{name: "glob and several directories", inputs: map[string]string{"d1/a.txt": "one\n", "d1/_hidden": "no\n", "d1/.crc": "no\n",
			"d2/b.log": "two\n", "d2/c.txt": "three\n", "d3/x.txt": "four five\n"},
			job: func(j *Job, in string) {
				j.Inputs = []string{filepath.Join(in, "d1"), filepath.Join(in, "d{2,3}/*.txt")}
				j.Reducer, j.Reduces = "reducer.sh", 2
			},
			parts: 2, want: []string{"five\t1", "four\t1", "one\t1", "three\t1"}},
		{name: "environment", inputs: map[string]string{"a.txt": "x\n"},
			job: func(j *Job, in string) {
				j.Mapper = `sh -c 'echo "$GREETING"; cat >/dev/null'`
				j.Env = []string{"GREETING=hello"}
				j.Reduces = 0
			},
			parts: 1, want: []string{"hello\t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, in := setup(t, tt.inputs)
			out := filepath.Join(t.TempDir(), "out")
			j := &Job{Inputs: []string{in}, Output: out, Mapper: "mapper.sh", Dir: dir}
			tt.job(j, in)
			c, err := Run(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			if got := outputLines(t, out, tt.parts); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("output\n%q\nwant\n%q", got, tt.want)
			}
			for k, v := range tt.counters {
				if c[GroupTask1][k] != v || c[GroupTask2][k] != v {
					t.Errorf("counter %s = %d/%d, want %d", k, c[GroupTask1][k], c[GroupTask2][k], v)
				}
			}
			if tt.groups != 0 && c[GroupTask2]["REDUCE_INPUT_GROUPS"] != tt.groups {
				t.Errorf("groups = %d, want %d", c[GroupTask2]["REDUCE_INPUT_GROUPS"], tt.groups)
			}
			if c[GroupJob1]["TOTAL_LAUNCHED_REDUCES"] != int64(j.Reduces) || c[GroupJob2]["TOTAL_LAUNCHED_MAPS"] == 0 {
				t.Errorf("job counters %v", c[GroupJob1])
			}
			if c[GroupFS1]["FILE_BYTES_READ"] == 0 || c[GroupFS2]["FILE_BYTES_WRITTEN"] == 0 {
				t.Errorf("file system counters %v", c[GroupFS1])
			}
			left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".out.tmp-*"))
			spills, _ := filepath.Glob(filepath.Join(dir, "tmp", "*", "*"))
			if len(left)+len(spills) > 0 {
				t.Errorf("temporary files left: %v %v", left, spills)
			}
		})
	}
}

// TestSortOrder checks the shuffle against sort(1) in the C locale over
// keys that differ past the 8-byte prefix, share prefixes, hold NUL-free
// bytes above 0x7f and repeat.
func TestSortOrder(t *testing.T) {
	var b strings.Builder
	words := []string{"abcdefghij", "abcdefgh", "abcdefghi", "abc", "ab", "b", "\xc3\xa9t\xc3\xa9", "Zeta", "abcdefghij", "a", "~"}
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "%s\n", words[(i*7)%len(words)])
	}
	dir, in := setup(t, map[string]string{"a.txt": b.String()})
	out := filepath.Join(t.TempDir(), "out")
	j := &Job{Inputs: []string{in}, Output: out, Mapper: "cut -c1-", Reducer: "cat", Reduces: 1, Dir: dir, SortBuffer: 300}
	if _, err := Run(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(out, "part-00000"))
	cmd := exec.Command("sort")
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	cmd.Stdin = strings.NewReader(strings.ReplaceAll(b.String(), "\n", "\t\n"))
	want, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("order\n%q\nwant\n%q", got, want)
	}
}

func TestGzipInput(t *testing.T) {
	dir, in := setup(t, nil)
	f, _ := os.Create(filepath.Join(in, "a.txt.gz"))
	z := gzip.NewWriter(f)
	z.Write([]byte(text1))
	z.Close()
	f.Close()
	out := filepath.Join(t.TempDir(), "out")
	j := &Job{Inputs: []string{in}, Output: out, Mapper: "mapper.sh", Reducer: "reducer.sh", Reduces: 1, Dir: dir}
	if _, err := Run(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	if got := outputLines(t, out, 1); len(got) != 8 || got[7] != "the\t2" {
		t.Errorf("output %q", got)
	}
}

func TestRunErrors(t *testing.T) {
	tests := []struct {
		name string
		job  func(j *Job, in, out string)
		is   error
		msg  []string
	}{
		{name: "output exists", job: func(j *Job, in, out string) { os.MkdirAll(out, 0o755) },
			is: ErrOutputExists, msg: []string{"Output directory", "already exists"}},
		{name: "input missing", job: func(j *Job, in, out string) { j.Inputs = []string{in + "/nothere"} },
			is: ErrInput, msg: []string{"Input path does not exist: file:"}},
		{name: "glob matches nothing", job: func(j *Job, in, out string) { j.Inputs = []string{in + "/*.xyz"} },
			is: ErrInput, msg: []string{"matches 0 files"}},
		{name: "failing mapper", job: func(j *Job, in, out string) { j.Mapper = `sh -c 'echo mapper broke >&2; exit 3'` },
			msg: []string{"attempt_local_0001_m_000000_0", "exit code [3]", "mapper broke"}},
		{name: "failing reducer", job: func(j *Job, in, out string) { j.Reducer = `sh -c 'cat >/dev/null; exit 7'` },
			msg: []string{"attempt_local_0001_r_000000_0", "exit code [7]"}},
		{name: "mapper not found", job: func(j *Job, in, out string) { j.Mapper = "no-such-mapper-gozie" },
			msg: []string{"no-such-mapper-gozie", "not found"}},
		{name: "unbalanced quote", job: func(j *Job, in, out string) { j.Mapper = `sh -c 'x` },
			msg: []string{"unbalanced quote"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, in := setup(t, map[string]string{"a.txt": text1})
			out := filepath.Join(t.TempDir(), "out")
			j := &Job{Inputs: []string{in}, Output: out, Mapper: "mapper.sh", Reducer: "reducer.sh", Reduces: 1, Dir: dir}
			tt.job(j, in, out)
			_, err := Run(context.Background(), j)
			if err == nil {
				t.Fatal("no error")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			for _, m := range tt.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q lacks %q", err, m)
				}
			}
			if tt.name != "output exists" {
				if _, err := os.Stat(out); err == nil {
					t.Error("a failed job left its output directory")
				}
			}
		})
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"cat", []string{"cat"}},
		{"  tr  -s ' ' ", []string{"tr", "-s", " "}},
		{`sh -c "a 'b' c"`, []string{"sh", "-c", "a 'b' c"}},
		{`x'y z'w`, []string{"xy zw"}},
		{`a ''`, []string{"a", ""}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestHashPartition(t *testing.T) {
	// Java: "the".hashCode() of the bytes = 114801, "fox" = 101583
	// (31-based over signed bytes, starting at 1 for Text: 1*31^3 + ...).
	for _, tt := range []struct {
		key  string
		want int32
	}{{"", 1}, {"a", 31 + 97}, {"ab", (31+97)*31 + 98}} {
		h := int32(1)
		for _, b := range []byte(tt.key) {
			h = 31*h + int32(int8(b))
		}
		if h != tt.want {
			t.Errorf("hash(%q) = %d, want %d", tt.key, h, tt.want)
		}
		if p := hashPartition([]byte(tt.key), 7); p != int(tt.want&0x7fffffff)%7 {
			t.Errorf("partition(%q) = %d", tt.key, p)
		}
	}
	if p := hashPartition([]byte{0xff, 0xfe}, 5); p < 0 || p >= 5 {
		t.Errorf("partition of high bytes = %d", p)
	}
}

func TestLineBounds(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	data := "aaaa\nbb\ncccccccccc\nd\n"
	os.WriteFile(p, []byte(data), 0o644)
	splits, err := ListSplits([]string{p}, 5)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range splits {
		got = append(got, data[s.Start:s.Start+s.Length])
	}
	want := []string{"aaaa\n", "bb\ncccccccccc\n", "d\n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("splits %q, want %q", got, want)
	}
}

// BenchmarkWordCount runs the word count over 8 MB of text.
func BenchmarkWordCount(b *testing.B) {
	var sb strings.Builder
	words := strings.Fields("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua")
	for i := 0; sb.Len() < 8<<20; i++ {
		sb.WriteString(words[(i*i+3*i)%len(words)])
		if i%12 == 11 {
			sb.WriteByte('\n')
		} else {
			sb.WriteByte(' ')
		}
	}
	dir, in := setup(b, map[string]string{"a.txt": sb.String()})
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := filepath.Join(b.TempDir(), "out")
		j := &Job{Inputs: []string{in}, Output: out, Mapper: "tr -s ' ' '\\n'", Reducer: "uniq -c", Reduces: 1, Dir: dir, SplitSize: 2 << 20}
		if _, err := Run(context.Background(), j); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLongRecords: records larger than the read buffer (1 MiB), the merge
// buffer (256 KiB) and the sort buffer go through whole.
func TestLongRecords(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	mid := strings.Repeat("m", 300<<10)
	in := "b\t" + big + "\n" + "a\t" + mid + "\n" + "c\tshort\n" + "a\t" + mid + "y\n"
	dir, indir := setup(t, map[string]string{"a.txt": in, "empty.txt": ""})
	out := filepath.Join(t.TempDir(), "out")
	j := &Job{Inputs: []string{indir}, Output: out, Mapper: "cat", Reducer: "cat", Reduces: 2, Dir: dir, SortBuffer: 1 << 10}
	c, err := Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	got := outputLines(t, out, 2)
	want := []string{"a\t" + mid, "a\t" + mid + "y", "b\t" + big, "c\tshort"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("long records differ: %d lines, lengths %v", len(got), func() (l []int) {
			for _, g := range got {
				l = append(l, len(g))
			}
			return
		}())
	}
	if c[GroupJob2]["TOTAL_LAUNCHED_MAPS"] != 2 || c[GroupTask2]["REDUCE_INPUT_GROUPS"] != 3 {
		t.Errorf("counters %v %v", c[GroupJob2], c[GroupTask2])
	}
}

func TestLineEnds(t *testing.T) {
	dir, in := setup(t, map[string]string{"dos.txt": "a b\r\nc\rd\r\n\r\ne"})
	out := filepath.Join(t.TempDir(), "out")
	c, err := Run(context.Background(), &Job{Inputs: []string{in}, Output: out, Mapper: "cat", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(out, "part-00000"))
	if string(b) != "a b\t\nc\t\nd\t\n\t\ne\t\n" || c[GroupTask1]["MAP_INPUT_RECORDS"] != 5 {
		t.Errorf("output %q, %d records", b, c[GroupTask1]["MAP_INPUT_RECORDS"])
	}
	// A "\r\n" split between two reads.
	got, cr := lineEnds(nil, []byte("x\r"), false)
	got, _ = lineEnds(got, []byte("\ny"), cr)
	if string(got) != "x\ny" {
		t.Errorf("split CRLF: %q", got)
	}
}
