package jvm

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gozie/gozie/internal/action"
	"github.com/gozie/gozie/internal/action/jvm/mrtool"
	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/conf"
	"github.com/gozie/gozie/internal/fsys"
	"github.com/gozie/gozie/internal/streaming"
	"github.com/gozie/gozie/internal/workflow"
)

// The map-reduce action (spec: wf 3.2.2) runs one of:
//
//   - a streaming job over local files (<streaming>, every input and
//     output path file:// or without scheme, the name-node file:// or
//     absent, mapper and reducer commands rather than Java classes): gozie
//     runs it itself, `gozie launch -tool streaming`, with the package
//     streaming;
//   - anything else — a Java map-reduce job (mapper and reducer classes in
//     the configuration), <pipes>, streaming over hdfs://, a streaming job
//     with a <record-reader> or Java mapper/reducer classes — is submitted
//     to Hadoop with the `mapred` command of gozie.hadoop.home, through
//     `gozie launch -tool mapred-job`, which waits for the job and reads
//     its id and counters from the command's output. Without Hadoop the
//     action fails at once with JA008.
//
// Both tools write mrResultFile; result reads it into the action's result
// (counters into Stats, read by hadoop:counters; Hadoop job ids into
// ChildIDs).

// Main class names Oozie's launcher would have run; messages name them.
const (
	mapReduceMain = "org.apache.oozie.action.hadoop.MapReduceMain"
	streamingMain = "org.apache.oozie.action.hadoop.StreamingMain"
	pipesMain     = "org.apache.oozie.action.hadoop.PipesMain"
)

func init() {
	launch.Register("map-reduce", func(l *launch.Runtime) action.Executor { return launch.NewProcess(l, mapReduceProgram{l.Opts}) })
}

// mapReduceProgram is the map-reduce action.
type mapReduceProgram struct{ opts launch.Options }

func (p mapReduceProgram) Build(dir string, a *action.Context) (*launch.LaunchSpec, error) {
	body := a.Element
	cfg := a.Conf
	if cfg == nil {
		cfg = conf.New()
	}
	if body.Child("streaming") != nil {
		why, stageable := notLocal(body, cfg)
		if why != "" && stageable {
			// Its paths are on stores gozie serves: without a Hadoop to
			// run it, the local runner stages them (mrtool).
			if _, err := p.opts.FindTool("mapred", launch.HadoopHome); err != nil {
				why = ""
			}
		}
		if why == "" {
			if err := launch.RunPrepare(launch.FilesContext(context.Background(), a), body); err != nil {
				return nil, err
			}
			return p.buildStreaming(dir, a, cfg)
		}
		return p.buildHadoop(dir, a, cfg, "a streaming job whose "+strings.TrimPrefix(why, "its ")+" needs Hadoop")
	}
	if cc := body.ChildText("config-class"); cc != "" {
		// Oozie's launcher runs the class in the job's JVM before it
		// submits; submitting without it would run another job.
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "<config-class> [%s] is not supported: set the properties it would set in <configuration>", cc)
	}
	why := "a Java map-reduce job needs Hadoop"
	if body.Child("pipes") != nil {
		why = "a pipes job needs Hadoop"
	}
	return p.buildHadoop(dir, a, cfg, why)
}

// confFirst returns the first of the keys set in cfg (the Hadoop 1 and 2
// names of one setting) and whether any is.
func confFirst(cfg *conf.Config, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := cfg.Get(k); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// Configuration keys of a streaming job, Hadoop 1 and Hadoop 2 names.
var (
	inputDirKeys  = []string{"mapred.input.dir", "mapreduce.input.fileinputformat.inputdir"}
	outputDirKeys = []string{"mapred.output.dir", "mapreduce.output.fileoutputformat.outputdir"}
	reducesKeys   = []string{"mapred.reduce.tasks", "mapreduce.job.reduces"}
	mapperKeys    = []string{"mapred.mapper.class", "mapreduce.job.map.class"}
	reducerKeys   = []string{"mapred.reducer.class", "mapreduce.job.reduce.class"}
)

// javaClassKeys are the settings of a streaming job that name Java
// classes, with the values the local runner implements.
var javaClassKeys = []struct {
	what     string
	keys     []string
	defaults []string
}{
	{"input format", []string{"mapred.input.format.class", "mapreduce.job.inputformat.class"},
		[]string{"org.apache.hadoop.mapred.TextInputFormat", "org.apache.hadoop.mapreduce.lib.input.TextInputFormat"}},
	{"output format", []string{"mapred.output.format.class", "mapreduce.job.outputformat.class"},
		[]string{"org.apache.hadoop.mapred.TextOutputFormat", "org.apache.hadoop.mapreduce.lib.output.TextOutputFormat"}},
	{"partitioner", []string{"mapred.partitioner.class", "mapreduce.job.partitioner.class"},
		[]string{"org.apache.hadoop.mapred.lib.HashPartitioner", "org.apache.hadoop.mapreduce.lib.partition.HashPartitioner"}},
	{"key comparator", []string{"mapred.output.key.comparator.class", "mapreduce.job.output.key.comparator.class"}, nil},
	{"grouping comparator", []string{"mapred.output.value.groupfn.class", "mapreduce.job.output.group.comparator.class"}, nil},
}

// notLocal says why a streaming action cannot run locally ("" when it
// can); stageable when the only reasons are a name-node or paths on
// stores gozie serves, whose files the local runner can fetch and write.
func notLocal(body *workflow.Element, cfg *conf.Config) (why string, stageable bool) {
	why, stageable = notLocalJava(body, cfg), true
	if why != "" {
		return why, false
	}
	nn := body.ChildText("name-node")
	if nn != "" && fsys.Scheme(nn) != "file" {
		why = "its name-node [" + nn + "] is not file://"
	}
	var paths []string
	for _, keys := range [][]string{inputDirKeys, outputDirKeys} {
		v, _ := confFirst(cfg, keys...)
		paths = append(paths, splitInputPaths(v)...)
	}
	// What must be served is where the job's data is: its paths, plain
	// absolute ones on the name-node (a mount of hdfs://nn/user serves a
	// job under it, though nothing serves hdfs://nn/ itself).
	for _, p := range paths {
		if fsys.Scheme(p) == "" && strings.HasPrefix(p, "/") && nn != "" && fsys.Scheme(nn) != "file" && fsys.Scheme(nn) != "" {
			p = fsys.Scheme(nn) + "://" + fsys.Authority(nn) + p
		}
		if s := fsys.Scheme(p); s != "" && s != "file" {
			if why == "" {
				why = "its path [" + p + "] is not local"
			}
			stageable = stageable && served(p)
		}
	}
	return why, stageable
}

// served reports whether the namespace reaches p's store.
func served(p string) bool {
	_, err := fsys.Default().Resolve(context.Background(), p)
	return err == nil
}

// notLocalJava says why a streaming action needs Hadoop's Java runtime.
func notLocalJava(body *workflow.Element, cfg *conf.Config) string {
	if v := body.Child("streaming").ChildText("record-reader"); v != "" {
		return "its <record-reader> is the Java class [" + v + "]"
	}
	for _, keys := range [][]string{mapperKeys, reducerKeys} {
		if v, ok := confFirst(cfg, keys...); ok && v != "" && !strings.HasPrefix(v, "org.apache.hadoop.streaming.") {
			return "its mapper or reducer is the Java class [" + v + "]"
		}
	}
	// Java classes that change what the job computes: the local runner
	// has only Hadoop's defaults, and ignoring one would report success
	// for a different job.
	for _, c := range javaClassKeys {
		if v, ok := confFirst(cfg, c.keys...); ok && v != "" && !slices.Contains(c.defaults, v) {
			return "its " + c.what + " is the Java class [" + v + "]"
		}
	}
	return ""
}

// splitInputPaths splits a comma-separated path list, keeping commas
// inside {a,b} globs, as Hadoop's FileInputFormat does.
func splitInputPaths(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				if p := strings.TrimSpace(s[start:i]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
}

// localPath turns a job path into a local one: file: URIs by their path,
// absolute paths as they are, relative paths against the application
// directory (Hadoop resolves them against the user's home directory on
// the file system; locally, the application is the natural home).
// A path on another store (or a plain absolute path under a name-node
// that is not file:) stays a URI, which the local runner stages.
func localPath(p, appDir, nn string) (string, error) {
	if fsys.Scheme(p) == "" && strings.HasPrefix(p, "/") && nn != "" && fsys.Scheme(nn) != "file" && fsys.Scheme(nn) != "" {
		p = fsys.Scheme(nn) + "://" + fsys.Authority(nn) + p
	}
	if fsys.Scheme(p) != "" {
		l, local, err := fsys.Default().LocalPath(context.Background(), p)
		if err != nil {
			return "", action.Errorf(action.ErrorKindError, launch.CodeUnsupportedFS, "%v", err)
		}
		if !local {
			return p, nil
		}
		return l, nil
	}
	if filepath.IsAbs(p) || appDir == "" {
		return p, nil
	}
	return filepath.Join(appDir, p), nil
}

// streamCommand is a <mapper> or <reducer> as Hadoop streaming reads it:
// URL-decoded (so '+' is a space and '%' must be written %25, as
// spec: wf 3.2.2.5 says).
func streamCommand(what, s string) (string, error) {
	d, err := url.QueryUnescape(s)
	if err != nil {
		return "", action.Errorf(action.ErrorKindError, launch.CodeSchema, "streaming %s [%s] is not URL-encoded ('%%' must be written %%25): %v", what, s, err)
	}
	return d, nil
}

// envName is a configuration key as Hadoop streaming exports it to its
// tasks: every character that is not a letter or digit becomes '_'.
func envName(key string) string {
	b := []byte(key)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}

func (p mapReduceProgram) buildStreaming(dir string, a *action.Context, cfg *conf.Config) (*launch.LaunchSpec, error) {
	st := a.Element.Child("streaming")
	appDir, err := launch.AppDirOf(a.AppPath)
	if err != nil {
		return nil, err
	}
	job := &streaming.Job{Dir: dir}
	if job.Mapper, err = streamCommand("mapper", st.ChildText("mapper")); err != nil {
		return nil, err
	}
	if job.Reducer, err = streamCommand("reducer", st.ChildText("reducer")); err != nil {
		return nil, err
	}
	// The configuration overrides the body, as in Oozie, where it is
	// applied after the streaming settings.
	if v, ok := cfg.Get("stream.map.streamprocessor"); ok {
		job.Mapper, _ = url.QueryUnescape(v)
	}
	if v, ok := cfg.Get("stream.reduce.streamprocessor"); ok {
		job.Reducer, _ = url.QueryUnescape(v)
	}
	in, _ := confFirst(cfg, inputDirKeys...)
	for _, ip := range splitInputPaths(in) {
		l, err := localPath(ip, appDir, a.Element.ChildText("name-node"))
		if err != nil {
			return nil, err
		}
		job.Inputs = append(job.Inputs, l)
	}
	if len(job.Inputs) == 0 {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "streaming job without input: set mapred.input.dir (or mapreduce.input.fileinputformat.inputdir)")
	}
	out, _ := confFirst(cfg, outputDirKeys...)
	if out == "" {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "streaming job without output: set mapred.output.dir (or mapreduce.output.fileoutputformat.outputdir)")
	}
	if job.Output, err = localPath(out, appDir, a.Element.ChildText("name-node")); err != nil {
		return nil, err
	}
	job.Reduces = 1
	if v, ok := confFirst(cfg, reducesKeys...); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "number of reducers [%s] is not a non-negative integer", v)
		}
		job.Reduces = n
	}
	intKey := func(dst *int, keys ...string) error {
		if v, ok := confFirst(cfg, keys...); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return action.Errorf(action.ErrorKindError, launch.CodeSchema, "%s [%s] is not a positive integer", keys[0], v)
			}
			*dst = n
		}
		return nil
	}
	if err := intKey(&job.KeyFields, "stream.num.map.output.key.fields"); err != nil {
		return nil, err
	}
	if err := intKey(&job.ReduceKeyFields, "stream.num.reduce.output.key.fields"); err != nil {
		return nil, err
	}
	var sortMB, splitMax int
	if err := intKey(&sortMB, "mapreduce.task.io.sort.mb", "io.sort.mb"); err != nil {
		return nil, err
	}
	job.SortBuffer = int64(sortMB) << 20
	if err := intKey(&splitMax, "mapreduce.input.fileinputformat.split.maxsize", "mapred.max.split.size"); err != nil {
		return nil, err
	}
	job.SplitSize = int64(splitMax)
	job.MapOutSep = cfg.GetDefault("stream.map.output.field.separator", "")
	job.ReduceInSep = cfg.GetDefault("stream.reduce.input.field.separator", "")
	job.ReduceOutSep = cfg.GetDefault("stream.reduce.output.field.separator", "")
	job.OutSep, _ = confFirst(cfg, "mapreduce.output.textoutputformat.separator", "mapred.textoutputformat.separator")

	// Tasks see the job configuration as environment variables, then the
	// <env> entries (Hadoop streaming's stream.addenvironment).
	for _, pr := range cfg.Properties() {
		v, _ := cfg.Get(pr.Name)
		job.Env = append(job.Env, envName(pr.Name)+"="+v)
	}
	for _, e := range st.ChildrenNamed("env") {
		kv := e.TrimText()
		if i := strings.IndexByte(kv, '='); i <= 0 {
			return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "streaming env [%s] is not NAME=VALUE", kv)
		}
		job.Env = append(job.Env, kv)
	}
	if err := stageStreamingFiles(dir, appDir, a, job); err != nil {
		return nil, err
	}
	if _, err := launch.WriteActionConf(dir, cfg); err != nil {
		return nil, err
	}
	data, _ := json.MarshalIndent(job, "", "  ")
	jobFile := filepath.Join(dir, mrtool.MrStreamingJobFile)
	if err := launch.WriteFileAtomic(jobFile, data); err != nil {
		return nil, action.Errorf(action.Transient, launch.CodeIO, "writing the streaming job: %v", err)
	}
	exe, args, err := p.opts.ToolCommand("streaming", jobFile)
	if err != nil {
		return nil, err
	}
	return &launch.LaunchSpec{Exec: exe, Args: args, MaxOutput: p.opts.MaxOutput}, nil
}

// stageStreamingFiles makes <file>s and <archive>s visible in the task
// directory; a file that is the mapper's or reducer's program is made
// executable (a copy), as Hadoop streaming makes it.
func stageStreamingFiles(dir, appDir string, a *action.Context, job *streaming.Job) error {
	ctx := launch.FilesContext(context.Background(), a)
	progs := map[string]bool{}
	for _, c := range []string{job.Mapper, job.Reducer} {
		if w, err := streaming.SplitCommand(c); err == nil && len(w) > 0 {
			progs[w[0]] = true
		}
	}
	for _, f := range a.Element.ChildrenNamed("file") {
		entry := f.TrimText()
		_, name, err := launch.SourceOf(ctx, appDir, entry)
		if err != nil {
			return err
		}
		execName := ""
		if progs[name] {
			execName = name
		}
		if err := launch.LinkFile(ctx, dir, appDir, entry, execName); err != nil {
			return err
		}
	}
	for _, f := range a.Element.ChildrenNamed("archive") {
		if err := launch.UnpackArchive(ctx, dir, appDir, f.TrimText()); err != nil {
			return err
		}
	}
	return nil
}

// Result reads the tool's outcome: counters and child ids on success, its
// error (code and message) on failure.
func (p mapReduceProgram) Result(dir string, a *action.Context, st launch.LaunchStatus) action.Result {
	main := mapReduceMain
	if a.Element != nil && a.Element.Child("streaming") != nil {
		main = streamingMain
	} else if a.Element != nil && a.Element.Child("pipes") != nil {
		main = pipesMain
	}
	r := launch.DefaultResult(dir, st, main)
	var out mrtool.MrOutcome
	if b, err := p.readOutcome(dir, a); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	r.ChildIDs = out.ChildIDs
	r.Data = nil
	if r.Status == action.OK {
		r.Stats = out.Counters
		return r
	}
	if st.Error == "" && out.Error != "" {
		r.ErrorMessage = out.Error
		if out.Code != "" {
			r.ErrorCode = out.Code
		}
	}
	if st.Signal != "" {
		r.ExternalStatus = "KILLED"
	}
	return r
}

// readOutcome reads the tool's outcome file (readJobRecord: with
// RunAsUser the tool ran as the job's user and the file is that user's).
func (p mapReduceProgram) readOutcome(dir string, _ *action.Context) ([]byte, error) {
	return launch.ReadJobRecord(filepath.Join(dir, mrtool.MrResultFile))
}

// ---- Hadoop ----

// mrStatusInterval is how often a submitted Hadoop job's state is asked.
var mrStatusInterval = action.DeclareSiteKey("gozie.mapreduce.status.interval", "5s",
	"how often the map-reduce action asks Hadoop for the state of a submitted job (mapred job -status), a Go duration")

func (p mapReduceProgram) buildHadoop(dir string, a *action.Context, cfg *conf.Config, why string) (*launch.LaunchSpec, error) {
	mapred, err := p.opts.FindTool("mapred", launch.HadoopHome)
	if err != nil {
		var xe *action.ExecError
		if errors.As(err, &xe) {
			xe.Msg = "map-reduce action [" + a.Name + "] needs Hadoop (" + why + "): " + xe.Msg
		}
		return nil, err
	}
	body := a.Element
	hj := mrtool.MapredJob{Mapred: mapred}
	if v := p.opts.Setting(mrStatusInterval); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "%s [%s] is not a positive duration", mrStatusInterval, v)
		}
		hj.PollMS = int(max(d.Milliseconds(), 1))
	}
	// The prepare block runs in the tool, on Hadoop's file systems, just
	// before the submission (Oozie's launcher does it there too); nothing
	// is deleted when Hadoop is missing.
	if hj.Prepare, err = p.hadoopPrepare(body); err != nil {
		return nil, err
	}
	appDir, err := launch.AppDirOf(a.AppPath)
	if err != nil {
		return nil, err
	}
	job := cfg.Clone()
	nn := body.ChildText("name-node")
	if nn != "" {
		if _, ok := job.Get("fs.defaultFS"); !ok {
			job.Set("fs.defaultFS", nn)
		}
	}
	if rm := firstNonEmpty(body.ChildText("resource-manager"), body.ChildText("job-tracker")); rm != "" && rm != "local" {
		if _, ok := job.Get("yarn.resourcemanager.address"); !ok {
			job.Set("yarn.resourcemanager.address", rm)
		}
	}
	files, archives, err := mrCacheEntries(appDir, a)
	if err != nil {
		return nil, err
	}
	jars, err := mrLibJars(dir, appDir, a, p.opts)
	if err != nil {
		return nil, err
	}
	jobXML := filepath.Join(dir, mrtool.MrJobXML)
	if pipes := body.Child("pipes"); pipes != nil {
		// mapred pipes takes the job configuration as -conf and the
		// distributed cache as generic options, then its own options;
		// it waits for the job (JobClient.runJob).
		hj.Waits = true
		hj.Argv = []string{"pipes", "-conf", jobXML}
		hj.Argv = append(hj.Argv, genericOpts(jars, files, archives)...)
		opts := []struct{ el, opt string }{{"map", "-map"}, {"reduce", "-reduce"}, {"inputformat", "-inputformat"},
			{"partitioner", "-partitioner"}, {"writer", "-writer"}}
		for _, o := range opts {
			if v := pipes.ChildText(o.el); v != "" {
				hj.Argv = append(hj.Argv, o.opt, v)
			}
		}
		if prog := pipes.ChildText("program"); prog != "" {
			hj.Argv = append(hj.Argv, "-program", qualify(prog, appDir))
		}
	} else {
		if st := body.Child("streaming"); st != nil {
			if err := setStreamingConf(job, cfg, st, mapred, p.opts.Setting(launch.HadoopHome)); err != nil {
				return nil, err
			}
			if jar, _ := job.Get("mapreduce.job.jar"); jar != "" {
				jars = append(jars, jar)
			}
		}
		if uber, ok := job.Get("oozie.mapreduce.uber.jar"); ok && uber != "" {
			job.Set("mapreduce.job.jar", qualify(uber, appDir))
		}
		// `mapred job -submit FILE` submits the file's configuration as
		// it is (generic options are not applied to it): the cache goes
		// in the keys the generic options would have set.
		setList(job, "tmpjars", jars)
		setList(job, "tmpfiles", files)
		setList(job, "tmparchives", archives)
		hj.Argv = []string{"job", "-submit", jobXML}
	}
	if _, err := launch.WriteActionConf(dir, cfg); err != nil {
		return nil, err
	}
	var sb strings.Builder
	if err := job.WriteXML(&sb); err != nil {
		return nil, action.Errorf(action.ErrorKindError, launch.CodeIO, "writing the job configuration: %v", err)
	}
	if err := launch.WriteFileAtomic(jobXML, []byte(sb.String())); err != nil {
		return nil, action.Errorf(action.Transient, launch.CodeIO, "writing the job configuration: %v", err)
	}
	data, _ := json.MarshalIndent(hj, "", "  ")
	jobFile := filepath.Join(dir, mrtool.MrHadoopJobFile)
	if err := launch.WriteFileAtomic(jobFile, data); err != nil {
		return nil, action.Errorf(action.Transient, launch.CodeIO, "writing the Hadoop job: %v", err)
	}
	exe, args, err := p.opts.ToolCommand("mapred-job", jobFile)
	if err != nil {
		return nil, err
	}
	return &launch.LaunchSpec{Exec: exe, Args: args, MaxOutput: p.opts.MaxOutput}, nil
}

// hadoopPrepare turns the prepare block into `hadoop fs` commands (paths
// without scheme on the name-node; relative ones refused, FS011).
func (p mapReduceProgram) hadoopPrepare(body *workflow.Element) ([][]string, error) {
	prep := body.Child("prepare")
	if prep == nil {
		return nil, nil
	}
	nnPrefix := ""
	if nn := body.ChildText("name-node"); nn != "" && fsys.Scheme(nn) != "" {
		nnPrefix = fsys.Scheme(nn) + "://" + fsys.Authority(nn)
	}
	var cmds [][]string
	for _, op := range prep.Children {
		if op.Name.Local != "delete" && op.Name.Local != "mkdir" {
			continue
		}
		raw := strings.TrimSpace(op.Attr("path"))
		if raw == "" {
			return nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "prepare %s, attribute [path] missing", op.Name.Local)
		}
		if fsys.Scheme(raw) == "" {
			if !strings.HasPrefix(raw, "/") {
				return nil, action.Errorf(action.ErrorKindError, launch.CodeFSRelative, "Path [%s] cannot be relative", raw)
			}
			raw = nnPrefix + raw
		}
		if op.Name.Local == "delete" {
			cmds = append(cmds, []string{"fs", "-rm", "-r", "-f", "-skipTrash", raw})
		} else {
			cmds = append(cmds, []string{"fs", "-mkdir", "-p", raw})
		}
	}
	if len(cmds) == 0 {
		return nil, nil
	}
	hadoop, err := p.opts.FindTool("hadoop", launch.HadoopHome)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(cmds))
	for i, c := range cmds {
		out[i] = append([]string{hadoop}, c...)
	}
	return out, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// qualify makes a path a URI Hadoop resolves the same way from anywhere:
// URIs stay, local absolute paths become file:// URIs, relative paths are
// resolved against the application directory.
func qualify(p, appDir string) string {
	if fsys.Scheme(p) != "" {
		return p
	}
	if !filepath.IsAbs(p) && appDir != "" {
		p = filepath.Join(appDir, p)
	}
	return "file://" + p
}

// mrCacheEntries returns the <file>s and <archive>s as qualified URIs
// with their #link names, for Hadoop's distributed cache.
func mrCacheEntries(appDir string, a *action.Context) (files, archives []string, err error) {
	for _, kind := range []string{"file", "archive"} {
		for _, f := range a.Element.ChildrenNamed(kind) {
			entry := f.TrimText()
			src, frag, _ := strings.Cut(entry, "#")
			if src == "" {
				return nil, nil, action.Errorf(action.ErrorKindError, launch.CodeSchema, "empty <%s> entry", kind)
			}
			u := qualify(src, appDir)
			if strings.HasPrefix(u, "file://") {
				if _, err := os.Stat(strings.TrimPrefix(u, "file://")); err != nil {
					return nil, nil, action.Errorf(action.ErrorKindError, launch.CodeFileNotFound, "File [%s] of the action does not exist: %v", entry, err)
				}
			}
			if frag != "" {
				u += "#" + frag
			}
			if kind == "file" {
				files = append(files, u)
			} else {
				archives = append(archives, u)
			}
		}
	}
	return files, archives, nil
}

// mrLibJars lists the jars a Hadoop job of the action needs on its class
// path, as URIs: the local class path that the JVM launcher path builds
// for the action (buildClassPath: the application's lib/, oozie.libpath,
// the share library when the job asks for it), then the <file>s that are
// jars, wherever they are; one jar per file name, as Hadoop's distributed
// cache localizes one file per name.
func mrLibJars(dir, appDir string, a *action.Context, opts launch.Options) ([]string, error) {
	cp, err := launch.BuildClassPath(dir, a, "map-reduce", "", opts)
	if err != nil {
		return nil, err
	}
	var jars []string
	seen := map[string]bool{}
	for _, p := range cp {
		if launch.IsJar(p) && !seen[filepath.Base(p)] {
			seen[filepath.Base(p)] = true
			jars = append(jars, "file://"+p)
		}
	}
	for _, f := range a.Element.ChildrenNamed("file") {
		src, _, _ := strings.Cut(f.TrimText(), "#")
		if launch.IsJar(src) && !seen[filepath.Base(src)] {
			seen[filepath.Base(src)] = true
			jars = append(jars, qualify(src, appDir))
		}
	}
	return jars, nil
}

// genericOpts are Hadoop's generic options for the distributed cache.
func genericOpts(jars, files, archives []string) []string {
	var out []string
	for _, o := range []struct {
		opt  string
		list []string
	}{{"-libjars", jars}, {"-files", files}, {"-archives", archives}} {
		if len(o.list) > 0 {
			out = append(out, o.opt, strings.Join(o.list, ","))
		}
	}
	return out
}

// setList adds entries to a comma-separated configuration list.
func setList(c *conf.Config, key string, add []string) {
	if len(add) == 0 {
		return
	}
	list := add
	if v, ok := c.Get(key); ok && strings.TrimSpace(v) != "" {
		list = append([]string{v}, add...)
	}
	c.Set(key, strings.Join(list, ","))
}

// setStreamingConf configures a streaming job for Hadoop as Oozie's
// StreamingMain does: Hadoop streaming's classes and keys first, the
// action configuration over them; the streaming jar of the Hadoop
// installation is the job's jar.
func setStreamingConf(job, actionConf *conf.Config, el *workflow.Element, mapred, home string) error {
	base := map[string]string{
		"mapred.mapper.class":              "org.apache.hadoop.streaming.PipeMapper",
		"mapred.reducer.class":             "org.apache.hadoop.streaming.PipeReducer",
		"mapred.map.runner.class":          "org.apache.hadoop.streaming.PipeMapRunner",
		"mapred.input.format.class":        "org.apache.hadoop.mapred.TextInputFormat",
		"mapred.output.format.class":       "org.apache.hadoop.mapred.TextOutputFormat",
		"mapred.output.value.class":        "org.apache.hadoop.io.Text",
		"mapred.output.key.class":          "org.apache.hadoop.io.Text",
		"mapred.create.symlink":            "yes",
		"mapred.used.genericoptionsparser": "true",
	}
	if v := el.ChildText("mapper"); v != "" {
		base["stream.map.streamprocessor"] = v
	}
	if v := el.ChildText("reducer"); v != "" {
		base["stream.reduce.streamprocessor"] = v
	}
	if v := el.ChildText("record-reader"); v != "" {
		base["stream.recordreader.class"] = v
	}
	for _, m := range el.ChildrenNamed("record-reader-mapping") {
		k, v, ok := strings.Cut(m.TrimText(), "=")
		if !ok {
			return action.Errorf(action.ErrorKindError, launch.CodeSchema, "record-reader-mapping [%s] is not NAME=VALUE", m.TrimText())
		}
		base["stream.recordreader."+k] = v
	}
	var env []string
	for _, e := range el.ChildrenNamed("env") {
		env = append(env, e.TrimText())
	}
	base["stream.addenvironment"] = strings.Join(env, " ")
	if home == "" {
		home = filepath.Dir(filepath.Dir(mapred))
	}
	jars, _ := filepath.Glob(filepath.Join(home, "share", "hadoop", "tools", "lib", "hadoop-streaming-*.jar"))
	if len(jars) == 0 {
		jars, _ = filepath.Glob(filepath.Join(home, "contrib", "streaming", "hadoop-streaming*.jar"))
	}
	if len(jars) == 0 {
		return action.Errorf(action.ErrorKindError, launch.CodeToolMissing, "the Hadoop streaming jar is not in %s (share/hadoop/tools/lib/hadoop-streaming-*.jar); set %s to the Hadoop installation", home, launch.HadoopHome)
	}
	sort.Strings(jars)
	base["mapreduce.job.jar"] = "file://" + jars[len(jars)-1]
	keys := make([]string, 0, len(base))
	for k := range base {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, ok := actionConf.Get(k); !ok {
			job.Set(k, base[k])
		}
	}
	return nil
}
