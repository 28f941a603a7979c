package fsys

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// maxBraceExpansions bounds how many patterns {a,b}{c,d}... may expand to,
// so that a hostile pattern cannot exhaust memory.
const maxBraceExpansions = 10000

// HasGlob reports whether p contains Hadoop glob syntax (* ? [ { or an
// escape), i.e. whether Glob may match other paths than p itself.
func HasGlob(p string) bool {
	return strings.ContainsAny(p, `*?[{\`)
}

// Glob returns the paths matching pattern, sorted and in pattern's form.
// The syntax is Hadoop's: * and ? within one path component, [abc], [a-z]
// and [^a] classes, {a,b} alternatives (which may nest and may contain
// slashes) and \ to escape the next character. A pattern without glob
// syntax matches itself when it exists. No match is an empty result, not an
// error.
func (n *Namespace) Glob(ctx context.Context, pattern string) ([]string, error) {
	r, err := n.Resolve(ctx, pattern)
	if err != nil {
		return nil, err
	}
	local, isLocal := r.Local()
	if !isLocal {
		local = pathPart(r.Path)
	}
	pats, err := expandBraces(local)
	if err != nil {
		return nil, fmt.Errorf("illegal file pattern [%s]: %w", pattern, err)
	}
	seen := make(map[string]bool)
	var out []string
	for _, p := range pats {
		var matches []string
		if isLocal {
			matches, err = globLocal(p)
		} else {
			matches, err = globStore(ctx, r.FS, strings.TrimSuffix(r.Path, pathPart(r.Path)), p)
		}
		if err != nil {
			if errors.Is(err, ErrUnavailable) || errors.Is(err, fs.ErrPermission) || errors.Is(err, ErrCredentials) {
				return nil, err
			}
			return nil, fmt.Errorf("illegal file pattern [%s]: %w", pattern, err)
		}
		for _, m := range matches {
			m = r.Back(m)
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// globStore matches the brace-free path pattern pat on a store whose paths
// start with store (scheme://authority): a listing per directory a
// wildcard component looks into, a Stat per literal path at the end.
func globStore(ctx context.Context, f FileSystem, store, pat string) ([]string, error) {
	comps := strings.Split(strings.Trim(pat, "/"), "/")
	bases := []string{store}
	for i, comp := range comps {
		if comp == "" {
			continue
		}
		last := i == len(comps)-1
		var next []string
		for _, b := range bases {
			if !strings.ContainsAny(comp, `*?[\`) {
				next = append(next, b+"/"+comp)
				continue
			}
			if _, err := path.Match(comp, ""); err != nil {
				return nil, errors.New("malformed character class or escape")
			}
			list, err := f.List(ctx, orRoot(b, store))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			for _, e := range list {
				name := baseName(e.Path)
				if ok, _ := path.Match(comp, name); ok && (last || e.Dir) {
					next = append(next, b+"/"+name)
				}
			}
		}
		sort.Strings(next)
		bases = slices.Compact(next)
		if len(bases) == 0 {
			return nil, nil
		}
	}
	// Literal components were taken on trust: check what they named.
	var out []string
	for _, b := range bases {
		b = orRoot(b, store)
		if _, err := f.Stat(ctx, b); err == nil {
			out = append(out, b)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return out, nil
}

// orRoot turns the bare store prefix into its root path.
func orRoot(p, store string) string {
	if p == store {
		return store + "/"
	}
	return p
}

// globLocal matches a brace-free pattern component by component, so that
// only the directories the pattern can reach are read.
func globLocal(pat string) ([]string, error) {
	if !strings.ContainsAny(pat, `*?[\`) {
		if _, err := os.Lstat(pat); err != nil {
			return nil, nil
		}
		return []string{filepath.Clean(pat)}, nil
	}
	var bases []string
	rest := pat
	if strings.HasPrefix(pat, "/") {
		bases = []string{"/"}
		rest = strings.TrimLeft(pat, "/")
	} else {
		bases = []string{""}
	}
	comps := strings.Split(rest, "/")
	for i, comp := range comps {
		if comp == "" {
			continue
		}
		last := i == len(comps)-1
		var next []string
		for _, b := range bases {
			if !strings.ContainsAny(comp, `*?[\`) {
				p := join(b, comp)
				if fi, err := os.Lstat(p); err == nil && (last || fi.IsDir() || isDirLink(p)) {
					next = append(next, p)
				}
				continue
			}
			// Validate the component once even when b cannot be read, so
			// a malformed class is reported rather than matching nothing.
			if _, err := filepath.Match(comp, ""); err != nil {
				return nil, errors.New("malformed character class or escape")
			}
			dir := b
			if dir == "" {
				dir = "."
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				ok, _ := filepath.Match(comp, e.Name())
				if !ok {
					continue
				}
				p := join(b, e.Name())
				if last || e.IsDir() || isDirLink(p) {
					next = append(next, p)
				}
			}
		}
		bases = next
		if len(bases) == 0 {
			return nil, nil
		}
	}
	return bases, nil
}

func join(base, name string) string {
	if base == "" {
		return name
	}
	return filepath.Join(base, name)
}

func isDirLink(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// expandBraces turns {a,b} alternatives into separate patterns, leftmost
// group first, keeping escaped braces and commas literal.
func expandBraces(p string) ([]string, error) {
	out := []string{}
	var rec func(s string) error
	rec = func(s string) error {
		open := -1
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '{' {
				open = i
				break
			}
			if s[i] == '}' {
				return errors.New("unopened group")
			}
		}
		if open < 0 {
			if len(out) >= maxBraceExpansions {
				return fmt.Errorf("more than %d alternatives", maxBraceExpansions)
			}
			out = append(out, s)
			return nil
		}
		depth, start := 0, open+1
		var alts []string
		closeAt := -1
		for i := open; i < len(s) && closeAt < 0; i++ {
			switch s[i] {
			case '\\':
				i++
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					alts = append(alts, s[start:i])
					closeAt = i
				}
			case ',':
				if depth == 1 {
					alts = append(alts, s[start:i])
					start = i + 1
				}
			}
		}
		if closeAt < 0 {
			return errors.New("unclosed group")
		}
		for _, a := range alts {
			if err := rec(s[:open] + a + s[closeAt+1:]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := rec(p); err != nil {
		return nil, err
	}
	return out, nil
}

// globPrefix returns the part of a pattern before its first glob character,
// cut back to a whole path component: the directory every match lies in.
func globPrefix(p string) string {
	i := strings.IndexAny(p, `*?[{\`)
	if i < 0 {
		return p
	}
	j := strings.LastIndexByte(p[:i], '/')
	if j < 0 {
		return ""
	}
	if j == 0 {
		return "/"
	}
	return p[:j]
}

// GlobBase returns the literal directory part of pattern (everything
// before the component holding the first glob character), in pattern's
// form. Callers use it to tell whether two paths can overlap.
func GlobBase(pattern string) string { return globPrefix(pattern) }
