package hadoop

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/fsys"
)

// sparkHome says where Spark is installed.
var sparkHome = action.DeclareSiteKey("gozie.spark.home", "", "Spark installation (the directory holding bin/spark-submit) for spark actions; empty: spark-submit on PATH")

func init() {
	launch.Register("spark", func(l *launch.Runtime) action.Executor {
		return launch.NewProcess(l, toolProgram{l: l, tool: "spark", exe: "spark-submit", homeKey: sparkHome, mainClass: sparkMain, args: sparkArgs})
	})
}

// sparkArgs builds the spark-submit command line the way Oozie's
// SparkArgsExtractor does, without what only its launcher job needs (the
// log4j and security-token settings, the class path of the launcher's
// container):
//
//	--master M [--deploy-mode MODE] --name N [--class C]
//	[--conf spark.oozie.X=V]...     the oozie.* action configuration
//	<spark-opts, split>             without --files/--archives, merged below
//	[--files F,...] [--archives A,...]
//	JAR [ARG]...
//
// <file> and <archive> entries (and --files/--archives of <spark-opts>)
// are handed on as --files and --archives unless the master is local,
// where they are in the working directory already. A JAR ending in .py is
// a PySpark application; spark-submit runs it the same way.
func sparkArgs(dir, appDir string, a *action.Context) ([]string, error) {
	body := a.Element
	master := body.ChildText("master")
	if master == "" {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "spark action without <master>")
	}
	jar := body.ChildText("jar")
	if jar == "" {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "spark action without <jar>")
	}
	args := []string{"--master", master}
	if mode := body.ChildText("mode"); mode != "" {
		args = append(args, "--deploy-mode", mode)
	}
	args = append(args, "--name", body.ChildText("name"))
	if class := body.ChildText("class"); class != "" {
		args = append(args, "--class", class)
	}
	for _, kv := range oozieProps(a.Conf, "oozie.launcher", "oozie.spark") {
		args = append(args, "--conf", "spark."+kv)
	}
	var files, archives []string
	opts := splitSparkOpts(body.ChildText("spark-opts"))
	for i := 0; i < len(opts); i++ {
		opt := opts[i]
		var list *[]string
		switch {
		case opt == "--files" || strings.HasPrefix(opt, "--files="):
			list = &files
		case opt == "--archives" || strings.HasPrefix(opt, "--archives="):
			list = &archives
		default:
			args = append(args, opt)
			continue
		}
		if _, v, ok := strings.Cut(opt, "="); ok {
			*list = append(*list, v)
		} else if i+1 < len(opts) {
			*list = append(*list, opts[i+1])
			i++
		}
	}
	if !sparkLocal(master) {
		for _, e := range childTexts(a, "file") {
			p, err := sparkResource(launch.FilesContext(context.Background(), a), appDir, e)
			if err != nil {
				return nil, err
			}
			files = append(files, p)
		}
		for _, e := range childTexts(a, "archive") {
			p, err := sparkResource(launch.FilesContext(context.Background(), a), appDir, e)
			if err != nil {
				return nil, err
			}
			archives = append(archives, p)
		}
	}
	if len(files) > 0 {
		args = append(args, "--files", strings.Join(files, ","))
	}
	if len(archives) > 0 {
		args = append(args, "--archives", strings.Join(archives, ","))
	}
	args = append(args, sparkJar(dir, appDir, jar))
	return append(args, childTexts(a, "arg")...), nil
}

// sparkLocal reports whether master runs everything in this process:
// local, local[N], local[*], local[N,F].
func sparkLocal(master string) bool {
	return master == "local" || strings.HasPrefix(master, "local[")
}

// sparkResource turns a <file>/<archive> entry into what --files and
// --archives take: the resolved local path, with #name when the entry
// renames it (YARN localizes it under that name).
func sparkResource(ctx context.Context, appDir, entry string) (string, error) {
	src, name, err := launch.SourceOf(ctx, appDir, entry)
	if err != nil {
		return "", err
	}
	if strings.Contains(entry, "#") {
		return src + "#" + name, nil
	}
	return src, nil
}

// sparkJar resolves <jar>: a name staged into the working directory by a
// <file> stays as it is (Oozie: refer to PySpark files by their localized
// name); a relative path is looked for in the application directory, then
// in its lib/ (whose files Oozie ships with every action); anything else
// (an absolute path, a URI) goes to spark-submit unchanged.
func sparkJar(dir, appDir, jar string) string {
	if fsys.Scheme(jar) != "" || filepath.IsAbs(jar) {
		return jar
	}
	if _, err := os.Stat(filepath.Join(dir, jar)); err == nil {
		return jar
	}
	for _, p := range []string{filepath.Join(appDir, jar), filepath.Join(appDir, "lib", jar)} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return jar
}

// Oozie's SparkOptionsSplitter, as regular expressions: an option key
// (--name or --name=), a value entirely in double quotes, and a value with
// quotes inside it.
var (
	sparkOptKey        = regexp.MustCompile(`\s*--[a-zA-Z0-9.]+[\-a-zA-Z0-9.]*=?`)
	sparkQuotedAtEnds  = regexp.MustCompile(`^(?:[a-zA-Z0-9.]+=".+")$`)
	sparkQuotesBetween = regexp.MustCompile(`^(?:[a-zA-Z0-9.]+=.*(\w\s+"\w+[\s+\w]*"|"\w+[\s+\w]*"\s+\w)+.*)$`)
)

// splitSparkOpts splits <spark-opts> as Oozie's SparkOptionsSplitter
// does: at each option key (a word starting with --); the text between two
// keys, trimmed, is one value, spaces included; a key=value whose whole
// value is in double quotes (and has none inside) loses its quotes; a
// key written --key=value is split into --key and value.
func splitSparkOpts(s string) []string {
	var out []string
	start := 0
	for _, m := range sparkOptKey.FindAllStringIndex(s, -1) {
		if start > 0 {
			if v := strings.TrimSpace(s[start:m[0]]); v != "" {
				out = append(out, unquoteSparkValue(v))
			}
		}
		out = append(out, strings.ReplaceAll(strings.TrimSpace(s[m[0]:m[1]]), "=", ""))
		start = m[1]
	}
	if v := strings.TrimSpace(s[start:]); v != "" {
		out = append(out, unquoteSparkValue(v))
	}
	return out
}

func unquoteSparkValue(v string) string {
	if sparkQuotedAtEnds.MatchString(v) && !sparkQuotesBetween.MatchString(v) {
		return strings.ReplaceAll(v, `"`, "")
	}
	return v
}
