package streaming

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Split is the part of one input file a mapper reads: whole lines from
// byte Start for Length bytes (a gzip file is one split, read whole).
type Split struct {
	Path   string
	Start  int64
	Length int64
	Gzip   bool
}

// Open returns the split's bytes (decompressed for gzip).
func (s Split) Open() (io.ReadCloser, error) {
	f, err := os.Open(s.Path)
	if err != nil {
		return nil, err
	}
	if s.Gzip {
		z, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
		return struct {
			io.Reader
			io.Closer
		}{z, f}, nil
	}
	return struct {
		io.Reader
		io.Closer
	}{io.NewSectionReader(f, s.Start, s.Length), f}, nil
}

// hidden are the names Hadoop's FileInputFormat skips.
func hidden(name string) bool {
	return strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")
}

// hasGlob reports whether p has Hadoop glob characters.
func hasGlob(p string) bool { return strings.ContainsAny(p, "*?[{") }

// InputFiles expands the input paths into files, in order: a glob into
// its matches, a directory into its non-hidden files (a directory inside
// is an error, as with Hadoop's non-recursive input). A path that names
// nothing is ErrInput with Hadoop's message.
func InputFiles(inputs []string) ([]string, error) {
	var files []string
	var problems []string
	for _, in := range inputs {
		matches := []string{in}
		if hasGlob(in) {
			var err error
			if matches, err = glob(in); err != nil {
				return nil, fmt.Errorf("%w: input pattern %s: %v", ErrInput, in, err)
			}
			if len(matches) == 0 {
				problems = append(problems, "Input Pattern file:"+in+" matches 0 files")
				continue
			}
		}
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil {
				problems = append(problems, "Input path does not exist: file:"+m)
				continue
			}
			if !fi.IsDir() {
				files = append(files, m)
				continue
			}
			entries, err := os.ReadDir(m)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if hidden(e.Name()) {
					continue
				}
				p := filepath.Join(m, e.Name())
				if fi, err := os.Stat(p); err == nil && fi.IsDir() {
					return nil, fmt.Errorf("%w: Not a file: file:%s", ErrInput, p)
				}
				files = append(files, p)
			}
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrInput, strings.Join(problems, "; "))
	}
	return files, nil
}

// glob expands a pattern with Go's filepath.Match syntax plus Hadoop's
// {a,b} alternatives; hidden names only match a pattern that starts with
// their first character.
func glob(p string) ([]string, error) {
	alts := expandBraces(p)
	seen := map[string]bool{}
	var out []string
	for _, a := range alts {
		ms, err := filepath.Glob(a)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if hidden(filepath.Base(m)) && !hidden(filepath.Base(a)) {
				continue
			}
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// expandBraces turns "a{b,c}d" into "abd", "acd" (nested braces too).
func expandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	depth, end := 0, -1
	var commas []int
	for i := open; i < len(p) && end < 0; i++ {
		switch p[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				end = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if end < 0 {
		return []string{p}
	}
	var out []string
	start := open + 1
	for _, c := range append(commas, end) {
		for _, rest := range expandBraces(p[start:c] + p[end+1:]) {
			out = append(out, p[:open]+rest)
		}
		start = c + 1
	}
	return out
}

// ListSplits returns the splits of the inputs: one per file, files
// larger than size cut at the first line end after each multiple of size.
func ListSplits(inputs []string, size int64) ([]Split, error) {
	files, err := InputFiles(inputs)
	if err != nil {
		return nil, err
	}
	var splits []Split
	for _, p := range files {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if strings.HasSuffix(p, ".gz") {
			splits = append(splits, Split{Path: p, Length: fi.Size(), Gzip: true})
			continue
		}
		bounds, err := lineBounds(p, fi.Size(), size)
		if err != nil {
			return nil, err
		}
		for i := 0; i+1 < len(bounds); i++ {
			splits = append(splits, Split{Path: p, Start: bounds[i], Length: bounds[i+1] - bounds[i]})
		}
		if fi.Size() == 0 {
			// An empty file is a split too: its mapper runs on no input.
			splits = append(splits, Split{Path: p})
		}
	}
	return splits, nil
}

// lineBounds returns the split boundaries of a file: 0, each multiple of
// size moved to just after the next newline, and the file's size.
func lineBounds(p string, total, size int64) ([]int64, error) {
	bounds := []int64{0}
	if total <= size {
		if total > 0 {
			bounds = append(bounds, total)
		}
		return bounds, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for next := size; next < total; next += size {
		if next <= bounds[len(bounds)-1] {
			continue // a line longer than a split
		}
		b, err := nextLineStart(f, next, total, buf)
		if err != nil {
			return nil, err
		}
		if b >= total {
			break
		}
		bounds = append(bounds, b)
	}
	return append(bounds, total), nil
}

// nextLineStart returns the offset just after the first newline at or
// after off-1 (so a split boundary that falls on a line start stays), or
// total when there is none.
func nextLineStart(f *os.File, off, total int64, buf []byte) (int64, error) {
	pos := off - 1
	for pos < total {
		n, err := f.ReadAt(buf, pos)
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	return total, nil
}

// SplitCommand splits a streaming command line into words as Hadoop
// streaming does: at spaces outside quotes; single or double quotes group
// words and are removed; there are no escapes and no shell (a pipeline or
// redirection needs an explicit `sh -c '...'` or a script).
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unbalanced quote %c in [%s]", quote, s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// lookPath finds a task's program as Hadoop streaming does: a relative
// name in the task's directory first, then on the PATH of its environment.
func lookPath(dir, name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("cannot run program [%s]: %w", name, err)
		}
		return p, nil
	}
	pathVar := ""
	for _, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			pathVar = kv[len("PATH="):]
		}
	}
	for _, d := range append([]string{dir}, filepath.SplitList(pathVar)...) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("cannot run program [%s]: not found in the task directory or $PATH", name)
}
