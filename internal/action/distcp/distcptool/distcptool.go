// Package distcptool is the child side of the distcp action: the local
// copy run as `gozie launch -tool distcp`, DistCp's command line and the
// counters file it leaves for the executor. It runs inside the launched
// process and links no engine, store or server.
package distcptool

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/fsys"
)

// DistcpReport is what the local tool leaves in distcpCountersFile.
type DistcpReport struct {
	Counters map[string]int64 `json:"counters"`
	Error    string           `json:"error,omitempty"`
}

func init() {
	launch.RegisterTool("distcp", RunDistcpTool)
}

// distcpOptions is a parsed DistCp command line.
type distcpOptions struct {
	update, overwrite, delete, ignoreFailures bool
	skipCRC, append, verbose                  bool
	preserve                                  string // letters of -p; "" none
	maps                                      int    // -m; 0: as many as cores
	bandwidth                                 float64
	bufferSize                                int
	SourceList                                string // -f
	filters                                   string // -filters
	DefaultFS                                 string // generic -fs
	unsupported                               []string
	Sources                                   []string
	Target                                    string
}

// distcpUsageError is a command line DistCp refuses.
type distcpUsageError struct{ msg string }

func (e *distcpUsageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &distcpUsageError{fmt.Sprintf(format, args...)}
}

// ParseDistcpArgs reads DistCp's options (Hadoop 3's set, and the generic
// -D, -conf, -fs, ... of Hadoop's tools), then the sources and the
// target, and checks the combinations DistCp refuses.
func ParseDistcpArgs(args []string) (*distcpOptions, error) {
	o := &distcpOptions{}
	var pos []string
	value := func(i *int, name string) (string, error) {
		if *i+1 >= len(args) {
			return "", usageErrorf("option %s needs a value", name)
		}
		*i++
		return args[*i], nil
	}
	number := func(i *int, name string) (float64, error) {
		v, err := value(i, name)
		if err != nil {
			return 0, err
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || n <= 0 {
			return 0, usageErrorf("option %s needs a positive number, not [%s]", name, v)
		}
		return n, nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		var err error
		switch name := strings.ToLower(a); {
		case name == "-update":
			o.update = true
		case name == "-overwrite":
			o.overwrite = true
		case name == "-delete":
			o.delete = true
		case name == "-i":
			o.ignoreFailures = true
		case name == "-skipcrccheck":
			o.skipCRC = true
		case name == "-append":
			o.append = true
		case name == "-v":
			o.verbose = true
		case strings.HasPrefix(a, "-p") && strings.Trim(a[2:], "rbugpcaxt") == "":
			o.preserve = a[2:]
			if o.preserve == "" {
				o.preserve = "rbugpct" // DistCp's meaning of a bare -p
			}
		case name == "-m":
			var n float64
			if n, err = number(&i, a); err == nil {
				o.maps = int(n)
			}
		case name == "-bandwidth":
			o.bandwidth, err = number(&i, a)
		case name == "-copybuffersize":
			var n float64
			if n, err = number(&i, a); err == nil {
				o.bufferSize = int(n)
			}
		case name == "-f":
			o.SourceList, err = value(&i, a)
		case name == "-filters":
			o.filters, err = value(&i, a)
		case name == "-fs":
			o.DefaultFS, err = value(&i, a)
		case a == "-D", name == "-conf", name == "-jt", name == "-files", name == "-libjars", name == "-archives",
			name == "-strategy", name == "-log", name == "-numliststatusthreads", name == "-blocksperchunk",
			name == "-sizelimit", name == "-filelimit", name == "-mapredsslconf":
			// Settings of the MapReduce job or its logs: they do not
			// change what a local copy does.
			_, err = value(&i, a)
		case strings.HasPrefix(a, "-D"), name == "-async", name == "-direct", name == "-useiterator":
			// -async returns before the job ends, -direct skips the
			// temporary file: a local copy is done when the tool exits
			// and always renames.
		case name == "-atomic", name == "-tmp", name == "-xtrack":
			o.unsupported = append(o.unsupported, a)
			if name != "-atomic" {
				_, err = value(&i, a)
			}
		case name == "-diff", name == "-rdiff":
			o.unsupported = append(o.unsupported, a)
			if _, err = value(&i, a); err == nil {
				_, err = value(&i, a)
			}
		default:
			err = usageErrorf("unrecognized option [%s]", a)
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case o.update && o.overwrite:
		return nil, usageErrorf("-update and -overwrite cannot be used together")
	case o.delete && !o.update && !o.overwrite:
		return nil, usageErrorf("-delete needs -update or -overwrite")
	case o.skipCRC && !o.update:
		return nil, usageErrorf("-skipcrccheck is valid only with -update")
	case o.append && (!o.update || o.skipCRC):
		return nil, usageErrorf("-append is valid only with -update and without -skipcrccheck")
	}
	if len(pos) == 0 {
		return nil, usageErrorf("target path not specified")
	}
	o.Target, o.Sources = pos[len(pos)-1], pos[:len(pos)-1]
	if len(o.Sources) == 0 && o.SourceList == "" {
		return nil, usageErrorf("source paths not specified")
	}
	if len(o.Sources) > 0 && o.SourceList != "" {
		return nil, usageErrorf("both source paths and a source file listing (-f) given")
	}
	return o, nil
}

// distcpSourceError marks a failure to read a source, the only kind of
// failure -i ignores (as DistCp's CopyReadException).
type distcpSourceError struct{ err error }

func (e *distcpSourceError) Error() string { return e.err.Error() }

func (e *distcpSourceError) Unwrap() error { return e.err }

// errDistcpKilled ends a copy that was asked to stop.
var errDistcpKilled = errors.New("distcp: killed")

// fileType names what fi is in DistCp's "Can't replace" message.
func fileType(fi fs.FileInfo) string {
	if fi == nil {
		return "N/A"
	}
	if fi.IsDir() {
		return "dir"
	}
	return "file"
}

// Exit statuses of the local tool: DistCp's own return codes (-1, -2,
// -3, -4, -999) as a process exit status (their low byte).
const (
	distcpExitInvalid   = 255 // INVALID_ARGUMENT
	distcpExitDuplicate = 254 // DUPLICATE_INPUT
	distcpExitACL       = 253 // ACLS_NOT_SUPPORTED
	distcpExitXAttr     = 252 // XATTRS_NOT_SUPPORTED
	distcpExitFailed    = 25  // UNKNOWN_ERROR
)

// DistcpTmpPrefix starts the names of files being copied: each is written
// beside its target under such a name and renamed into place when whole,
// so that a killed copy never leaves a truncated file under a real name.
const DistcpTmpPrefix = ".distcp.tmp."

// RunDistcpTool is `gozie launch -tool distcp -gozie-counters FILE
// -gozie-default-fs NN -- DISTCP-ARGS...`: the local copy. It records its
// counters (and its error) in FILE and stops, cleaning up, on SIGTERM.
func RunDistcpTool(args []string, stdout, stderr io.Writer) int {
	var countersPath, defaultFS string
	for len(args) >= 2 && args[0] != "--" {
		switch args[0] {
		case "-gozie-counters":
			countersPath = args[1]
		case "-gozie-default-fs":
			defaultFS = args[1]
		default:
			fmt.Fprintf(stderr, "Error: unknown tool option %s\n", args[0])
			return distcpExitInvalid
		}
		args = args[2:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	c := &localDistcp{defaultFS: defaultFS, log: stdout, counters: map[string]int64{}}
	// The umask is read (by setting it) once, before any copying starts.
	c.umask = fs.FileMode(syscall.Umask(0o022))
	syscall.Umask(int(c.umask))
	if err := launch.UseActionStores(os.Getenv(launch.ConfEnvVar)); err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return distcpExitInvalid
	}
	code, err := c.run(ctx, args)
	rep := DistcpReport{Counters: c.snapshot()}
	if err != nil {
		rep.Error = err.Error()
		fmt.Fprintf(stderr, "Error: %v\n", err)
	}
	if countersPath != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if werr := launch.WriteFileAtomic(countersPath, b); werr != nil {
			fmt.Fprintf(stderr, "Error: writing counters: %v\n", werr)
			if code == 0 {
				code = distcpExitFailed
			}
		}
	}
	return code
}

// localDistcp is one run of the local copy.
type localDistcp struct {
	defaultFS string
	log       io.Writer
	o         *distcpOptions
	target    string
	umask     fs.FileMode
	mu        sync.Mutex
	counters  map[string]int64
}

// distcpEntry is one path of the copy listing: a source and the path
// relative to the target it goes to ("" for the target itself).
type distcpEntry struct {
	src string
	rel string
	fi  fs.FileInfo
}

func (c *localDistcp) count(name string, n int64) {
	c.mu.Lock()
	c.counters[name] += n
	c.mu.Unlock()
}

func (c *localDistcp) logf(format string, args ...any) {
	c.mu.Lock()
	fmt.Fprintf(c.log, format+"\n", args...)
	c.mu.Unlock()
}

func (c *localDistcp) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int64{}
	for _, k := range []string{"COPY", "DIR_COPY", "SKIP", "FAIL", "BYTESCOPIED", "BYTESEXPECTED", "BYTESSKIPPED", "BYTESFAILED"} {
		out[k] = c.counters[k]
	}
	return out
}

func (c *localDistcp) run(ctx context.Context, args []string) (int, error) {
	o, err := ParseDistcpArgs(args)
	if err != nil {
		return distcpExitInvalid, err
	}
	c.o = o
	if len(o.unsupported) > 0 {
		return distcpExitInvalid, fmt.Errorf("option %s has no meaning for gozie's local copy (file:// paths); it needs a Hadoop cluster", o.unsupported[0])
	}
	if strings.ContainsRune(o.preserve, 'a') {
		return distcpExitACL, fmt.Errorf("-pa: ACLs are not supported by the local file system")
	}
	if strings.ContainsRune(o.preserve, 'x') {
		return distcpExitXAttr, fmt.Errorf("-px: extended attributes are not supported by the local file system")
	}
	if o.DefaultFS != "" {
		c.defaultFS = o.DefaultFS
	}
	cwd, _ := os.Getwd()
	if !c.allLocal(o) {
		return c.runStores(ctx, o)
	}
	sources := o.Sources
	if o.SourceList != "" {
		l, err := c.local(o.SourceList, cwd)
		if err == nil {
			sources, err = ReadSourceList(l)
		}
		if err != nil {
			return distcpExitInvalid, fmt.Errorf("reading the source listing [%s]: %v", o.SourceList, err)
		}
		if len(sources) == 0 {
			return distcpExitInvalid, fmt.Errorf("the source listing [%s] is empty", o.SourceList)
		}
	}
	if c.target, err = c.local(o.Target, cwd); err != nil {
		return distcpExitInvalid, err
	}
	var srcs []string
	for _, s := range sources {
		l, err := c.local(s, cwd)
		if err != nil {
			return distcpExitInvalid, err
		}
		if fsys.HasGlob(s) {
			m, err := fsys.Glob(context.TODO(), l)
			if err != nil {
				return distcpExitInvalid, err
			}
			if len(m) == 0 {
				return distcpExitInvalid, fmt.Errorf("input source [%s] matches no path", s)
			}
			srcs = append(srcs, m...)
			continue
		}
		if _, err := os.Stat(l); err != nil {
			return distcpExitInvalid, fmt.Errorf("input source [%s] does not exist", s)
		}
		srcs = append(srcs, l)
	}
	filters, err := readDistcpFilters(o.filters, cwd)
	if err != nil {
		return distcpExitInvalid, err
	}
	tfi, terr := os.Stat(c.target)
	targetExists := terr == nil
	if len(srcs) > 1 && targetExists && !tfi.IsDir() {
		return distcpExitInvalid, fmt.Errorf("several sources cannot be copied to the file [%s]", o.Target)
	}
	entries, err := c.listing(srcs, targetExists, tfi, filters)
	if err != nil {
		if errors.Is(err, errDistcpDuplicate) {
			return distcpExitDuplicate, err
		}
		return distcpExitInvalid, err
	}
	// DistCp overwrites when the target itself is an existing file.
	overwrite := o.overwrite || targetExists && !tfi.IsDir()
	if err := c.copyAll(ctx, entries, overwrite); err != nil {
		return distcpExitFailed, err
	}
	if o.delete {
		if err := c.deleteMissing(ctx, entries); err != nil {
			return distcpExitFailed, err
		}
	}
	return 0, nil
}

// local resolves a path of the command line on the local file system.
func (c *localDistcp) local(p, cwd string) (string, error) {
	if !IsLocalPath(p, c.defaultFS) {
		return "", fmt.Errorf("path [%s] is not on the local file system (default file system [%s]): gozie copies only file:// paths itself", p, c.defaultFS)
	}
	return ResolveLocal(Qualify(p, c.defaultFS), cwd)
}

// readDistcpFilters reads -filters: one regular expression a line; a path
// that matches one in full is not copied.
func readDistcpFilters(path, cwd string) ([]*regexp.Regexp, error) {
	if path == "" {
		return nil, nil
	}
	l, err := ResolveLocal(path, cwd)
	if err == nil {
		var lines []string
		if lines, err = ReadSourceList(l); err == nil {
			var out []*regexp.Regexp
			for _, line := range lines {
				re, err := regexp.Compile(`^(?:` + line + `)$`)
				if err != nil {
					return nil, fmt.Errorf("-filters [%s]: %v", path, err)
				}
				out = append(out, re)
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("reading -filters [%s]: %v", path, err)
}

var errDistcpDuplicate = errors.New("duplicate target")

// listing walks the sources the way DistCp's copy listing does. Each
// source has a root, and a path goes to the target joined with its path
// relative to that root:
//   - a lone file source: the file itself when the target does not exist
//     or is a file (the target is the copy), else its parent (the copy
//     goes into the target directory under the file's name);
//   - a directory source: the directory itself (its contents go into the
//     target) with -update or -overwrite, or when it is the only source
//     and the target does not exist; else its parent (the directory is
//     copied into the target under its own name);
//   - other files among several sources: their parent.
func (c *localDistcp) listing(srcs []string, targetExists bool, tfi fs.FileInfo, filters []*regexp.Regexp) ([]distcpEntry, error) {
	var out []distcpEntry
	seen := map[string]string{}
	skip := func(p string) bool {
		for _, re := range filters {
			if re.MatchString(p) || re.MatchString("file:"+p) {
				return true
			}
		}
		return false
	}
	for _, src := range srcs {
		sfi, err := os.Stat(src)
		if err != nil {
			return nil, fmt.Errorf("input source [%s] does not exist", src)
		}
		root := filepath.Dir(src)
		if !sfi.IsDir() && len(srcs) == 1 {
			if !targetExists || !tfi.IsDir() {
				root = src
			}
		} else if sfi.IsDir() && (c.o.update || c.o.overwrite || len(srcs) == 1 && !targetExists) {
			root = src
		}
		err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != src && skip(p) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			fi, err := os.Stat(p) // follow links, as Hadoop's local file system does
			if err != nil {
				return err
			}
			rel := ""
			if p != root {
				r, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				rel = r
			}
			if other, dup := seen[rel]; dup {
				return fmt.Errorf("%w: [%s] and [%s] would both be copied to [%s]", errDistcpDuplicate, other, p, filepath.Join(c.target, rel))
			}
			seen[rel] = p
			out = append(out, distcpEntry{src: p, rel: rel, fi: fi})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *localDistcp) targetOf(rel string) string {
	if rel == "" {
		return c.target
	}
	return filepath.Join(c.target, rel)
}

// Qualify puts a plain absolute path on the default file system (the
// name-node), as Hadoop does; other paths are returned as they are.
func Qualify(p, defaultFS string) string {
	s := fsys.Scheme(defaultFS)
	if fsys.Scheme(p) != "" || s == "" || s == "file" || !strings.HasPrefix(p, "/") {
		return p
	}
	return s + "://" + fsys.Authority(defaultFS) + p
}

// IsLocalPath reports whether p names the local file system once put on
// the default file system and through the mount table: a file: URI, a
// plain path when the name-node is unset or file:, or a mounted prefix
// whose target is local.
func IsLocalPath(p, defaultFS string) bool {
	_, local, err := fsys.Default().LocalPath(context.Background(), Qualify(p, defaultFS))
	return err == nil && local
}

// ResolveLocal turns a local path, file: URI or mounted URI into an
// absolute path; relative paths are taken from dir (the tool's working
// directory, as Hadoop takes them from its working directory).
func ResolveLocal(p, dir string) (string, error) {
	l, local, err := fsys.Default().LocalPath(context.Background(), p)
	if err == nil && !local {
		err = fmt.Errorf("path [%s] is not on the local file system", p)
	}
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(l) {
		l = filepath.Join(dir, l)
	}
	return filepath.Clean(l), nil
}

// ReadSourceList reads the file of -f: one source path per line.
func ReadSourceList(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}
