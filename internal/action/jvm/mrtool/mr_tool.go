// Package mrtool is the child side of the map-reduce action: the built-in
// tools `gozie launch -tool streaming` (the local streaming job) and
// `-tool mapred-job` (submit a Hadoop job and follow it), and the outcome
// file they leave for the executor. It runs inside the launched process
// and links no engine, store or server.
package mrtool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gozie/gozie/internal/launch"

	"github.com/gozie/gozie/internal/streaming"
)

// Files of the map-reduce action in its working directory.
const (
	MrStreamingJobFile = "streaming.json" // the local streaming job (streaming.Job)
	MrHadoopJobFile    = "mapred-job.json"
	MrJobXML           = "job.xml"        // the configuration submitted to Hadoop
	MrResultFile       = "mapreduce.json" // mrOutcome, written by either tool
)

func init() {
	launch.RegisterTool("streaming", streamingTool)
	launch.RegisterTool("mapred-job", mapredJobTool)
}

// MrOutcome is what a map-reduce tool reports beyond its exit status.
type MrOutcome struct {
	Counters streaming.Counters `json:"counters,omitempty"`
	ChildIDs []string           `json:"childIDs,omitempty"`
	Code     string             `json:"code,omitempty"`
	Error    string             `json:"error,omitempty"`
}

// writeOutcome records a tool's outcome in the working directory.
func writeOutcome(dir string, o MrOutcome) error {
	data, _ := json.MarshalIndent(o, "", "  ")
	return launch.WriteFileAtomic(filepath.Join(dir, MrResultFile), data)
}

// toolSignals makes SIGTERM and SIGINT cancel ctx, so that a tool killed
// with its action cleans up (or kills its Hadoop job) before it exits.
func toolSignals() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		select {
		case <-ch:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

// streamingTool is `gozie launch -tool streaming JOBFILE`: it runs the
// local streaming job and writes its outcome next to JOBFILE.
func streamingTool(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "Usage: gozie launch -tool streaming JOBFILE")
		return launch.LauncherUsage
	}
	dir := filepath.Dir(args[0])
	var job streaming.Job
	b, err := os.ReadFile(args[0])
	if err == nil {
		err = json.Unmarshal(b, &job)
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: reading the streaming job: %v\n", err)
		return launch.LauncherFailed
	}
	ctx, stop := toolSignals()
	defer stop()
	fmt.Fprintf(stdout, "Running local streaming job: mapper [%s], reducer [%s], %d reducer(s), input %v, output [%s]\n",
		job.Mapper, job.Reducer, job.Reduces, job.Inputs, job.Output)
	var finish func() error
	if err == nil {
		finish, err = stageStores(ctx, dir, &job)
	}
	var counters streaming.Counters
	if err == nil {
		counters, err = streaming.Run(ctx, &job)
	}
	if err == nil && finish != nil {
		err = finish()
	}
	if err != nil {
		o := MrOutcome{Code: launch.CodeLauncher, Error: streamingError(err)}
		fmt.Fprintln(stderr, "Error:", o.Error)
		if werr := writeOutcome(dir, o); werr != nil {
			fmt.Fprintln(stderr, "Error:", werr)
		}
		if ctx.Err() != nil {
			return 143 // killed: as a shell reports death by SIGTERM
		}
		return 1
	}
	if err := writeOutcome(dir, MrOutcome{Counters: counters}); err != nil {
		fmt.Fprintln(stderr, "Error:", err)
		return 1
	}
	fmt.Fprintf(stdout, "Job complete: output [%s]\n", job.Output)
	return 0
}

// streamingError words a failed local job the way Oozie reports a failed
// streaming action: the main class, then the Hadoop exception.
func streamingError(err error) string {
	var te *streaming.TaskError
	switch {
	case errors.Is(err, streaming.ErrOutputExists):
		return "org.apache.hadoop.mapred.FileAlreadyExistsException: " + strings.TrimPrefix(err.Error(), streaming.ErrOutputExists.Error()+": ")
	case errors.Is(err, streaming.ErrInput):
		return "org.apache.hadoop.mapred.InvalidInputException: " + strings.TrimPrefix(err.Error(), streaming.ErrInput.Error()+": ")
	case errors.As(err, &te):
		return "Streaming job failed: " + te.Error()
	case errors.Is(err, context.Canceled):
		return "Streaming job killed"
	}
	return "Streaming job failed: " + err.Error()
}

// MapredJob is what `gozie launch -tool mapred-job` runs: Argv submits
// the job; with Waits the command itself waits for the job's end (mapred
// pipes); otherwise the tool polls `mapred job -status ID`.
type MapredJob struct {
	Mapred string   `json:"mapred"`
	Argv   []string `json:"argv"`
	// Prepare are the commands of the prepare block (program and
	// arguments: hadoop fs -rm / -mkdir), run in order before Argv.
	Prepare [][]string `json:"prepare,omitempty"`
	Waits   bool       `json:"waits,omitempty"`
	// PollMS is the wait between status polls (0: 5 seconds).
	PollMS int `json:"pollMs,omitempty"`
}

// jobIDPattern matches a Hadoop job id.
var jobIDPattern = regexp.MustCompile(`\bjob_[0-9A-Za-z]+_[0-9]{4,}\b`)

// jobState matches the state line of `mapred job -status`.
var jobState = regexp.MustCompile(`(?m)^\s*Job state:\s*([A-Z]+)`)

// mapredJobTool is `gozie launch -tool mapred-job JOBFILE`: it submits a
// job with Hadoop's mapred command and waits for its end — the command
// itself waits (mapred pipes), or the tool polls `mapred job -status`. It
// records the Hadoop job id and the counters in the outcome; killed, it
// kills the Hadoop job too (`mapred job -kill`).
func mapredJobTool(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "Usage: gozie launch -tool mapred-job JOBFILE")
		return launch.LauncherUsage
	}
	dir := filepath.Dir(args[0])
	var job MapredJob
	b, err := os.ReadFile(args[0])
	if err == nil {
		err = json.Unmarshal(b, &job)
	}
	if err != nil {
		fmt.Fprintf(stderr, "Error: reading the Hadoop job: %v\n", err)
		return launch.LauncherFailed
	}
	ctx, stop := toolSignals()
	defer stop()
	h := &hadoopRun{job: job, dir: dir, stdout: stdout, stderr: stderr}
	out, code := h.run(ctx)
	if err := writeOutcome(dir, out); err != nil {
		fmt.Fprintln(stderr, "Error:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// hadoopRun is one run of mapredJobTool.
type hadoopRun struct {
	job            MapredJob
	dir            string
	stdout, stderr io.Writer
	killed         bool // the Hadoop job was told to die
}

// run submits and follows the job; it returns the outcome and the exit
// status of the tool.
func (h *hadoopRun) run(ctx context.Context) (MrOutcome, int) {
	var out MrOutcome
	fail := func(format string, args ...any) (MrOutcome, int) {
		out.Code = launch.CodeLauncher
		out.Error = fmt.Sprintf(format, args...)
		fmt.Fprintln(h.stderr, "Error:", out.Error)
		if ctx.Err() != nil {
			h.killJob(&out) // killed between two commands
			return out, 143
		}
		return out, 1
	}
	for _, c := range h.job.Prepare {
		text, exit, err := h.run1(ctx, nil, c[0], c[1:]...)
		if killedWith(ctx, exit, err) {
			return fail("killed")
		}
		if err != nil || exit != 0 {
			return fail("prepare [%s] failed (exit code %d, %v): %s", strings.Join(c[1:], " "), exit, err, lastLines(text, 5))
		}
	}
	text, exit, err := h.command(ctx, &out, h.job.Argv...)
	if err != nil {
		return fail("running [%s %s]: %v", h.job.Mapred, strings.Join(h.job.Argv, " "), err)
	}
	if killedWith(ctx, exit, err) {
		return fail("killed")
	}
	if exit != 0 {
		id := ""
		if len(out.ChildIDs) > 0 {
			id = " " + out.ChildIDs[0]
		}
		return fail("MapReduce job%s failed: [mapred %s] exit code [%d]: %s", id, h.job.Argv[0], exit, lastLines(text, 5))
	}
	if len(out.ChildIDs) == 0 {
		return fail("no Hadoop job id in the output of [mapred %s]: %s", strings.Join(h.job.Argv, " "), lastLines(text, 5))
	}
	id := out.ChildIDs[0]
	if h.job.Waits {
		out.Counters = ParseCounters(text)
		return out, 0
	}
	poll := time.Duration(h.job.PollMS) * time.Millisecond
	if poll <= 0 {
		poll = 5 * time.Second
	}
	for {
		status, exit, err := h.command(ctx, nil, "job", "-status", id)
		if killedWith(ctx, exit, err) {
			return fail("killed")
		}
		if err != nil || exit != 0 {
			return fail("asking Hadoop for the state of job [%s] (exit code %d, %v): %s", id, exit, err, lastLines(status, 5))
		}
		m := jobState.FindStringSubmatch(status)
		state := ""
		if m != nil {
			state = m[1]
		}
		switch state {
		case "SUCCEEDED":
			out.Counters = ParseCounters(status)
			return out, 0
		case "FAILED", "KILLED":
			reason := ""
			if rm := regexp.MustCompile(`(?m)^\s*reason for failure:\s*(.*)$`).FindStringSubmatch(status); rm != nil {
				reason = ": " + strings.TrimSpace(rm[1])
			}
			out.Counters = ParseCounters(status)
			return fail("MapReduce job [%s] ended [%s]%s", id, state, reason)
		}
		select {
		case <-ctx.Done():
			return fail("killed")
		case <-time.After(poll):
		}
	}
}

// killedWith reports whether the tool is being killed, after a command
// that ended with exit and err. A command ended by a signal (err nil,
// exit < 0) most likely got the SIGTERM that Kill sends the whole process
// group, which reaches the tool too, a moment later through its signal
// handler: it waits up to a second for that, so that the Hadoop job is
// killed rather than the command's end taken for a failure.
func killedWith(ctx context.Context, exit int, err error) bool {
	if ctx.Err() == nil && err == nil && exit < 0 {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	return ctx.Err() != nil
}

// command runs `mapred ARGS...` in the working directory, copying its
// output to the tool's and returning it. With out, job ids are picked out
// of the output as it comes, so that a kill during the command knows the
// job to kill.
func (h *hadoopRun) command(ctx context.Context, out *MrOutcome, args ...string) (string, int, error) {
	return h.run1(ctx, out, h.job.Mapred, args...)
}

// run1 runs one command as command describes.
func (h *hadoopRun) run1(ctx context.Context, out *MrOutcome, prog string, args ...string) (string, int, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir = h.dir
	var buf syncBuffer
	cmd.Stdout = io.MultiWriter(h.stdout, &buf)
	cmd.Stderr = io.MultiWriter(h.stderr, &buf)
	if err := cmd.Start(); err != nil {
		return "", -1, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		if out != nil {
			out.ChildIDs = pickJobIDs(out.ChildIDs, buf.String())
		}
		h.killJob(out)
		_ = cmd.Process.Signal(syscall.SIGTERM)
		err = <-done
	}
	text := buf.String()
	if out != nil {
		out.ChildIDs = pickJobIDs(out.ChildIDs, text)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return text, ee.ExitCode(), nil
	}
	if err != nil {
		return text, -1, err
	}
	return text, 0, nil
}

// killJob kills the Hadoop job of a killed action. The kill command runs
// in a process group of its own: the action's group is killed next.
func (h *hadoopRun) killJob(out *MrOutcome) {
	if out == nil || len(out.ChildIDs) == 0 || h.killed {
		return
	}
	h.killed = true
	cmd := exec.Command(h.job.Mapred, "job", "-kill", out.ChildIDs[0])
	cmd.Dir = h.dir
	cmd.Stdout, cmd.Stderr = h.stdout, h.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(h.stderr, "Error: killing Hadoop job %s: %v\n", out.ChildIDs[0], err)
		return
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
	}
}

// pickJobIDs adds the job ids found in text to ids, in order, once each.
func pickJobIDs(ids []string, text string) []string {
	for _, id := range jobIDPattern.FindAllString(text, -1) {
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// syncBuffer collects a command's output from two writers.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() < 8<<20 { // enough for ids and counters; a runaway log is cut
		s.b.Write(p)
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Hadoop prints counters by display name ("Map-Reduce Framework", "Map
// input records"); hadoop:counters names them by group class and enum
// ("org.apache.hadoop.mapreduce.TaskCounter", "MAP_INPUT_RECORDS").
var (
	counterGroups = map[string]string{
		"File System Counters":        streaming.GroupFS2,
		"Job Counters":                streaming.GroupJob2,
		"Map-Reduce Framework":        streaming.GroupTask2,
		"File Input Format Counters":  streaming.GroupInputFmt,
		"File Output Format Counters": streaming.GroupOutputFmt,
	}
	// legacyGroups are the Hadoop 1 names of the same groups.
	legacyGroups = map[string]string{
		streaming.GroupFS2:   streaming.GroupFS1,
		streaming.GroupJob2:  streaming.GroupJob1,
		streaming.GroupTask2: streaming.GroupTask1,
	}
	counterNames = map[string]string{
		"Launched map tasks": "TOTAL_LAUNCHED_MAPS", "Launched reduce tasks": "TOTAL_LAUNCHED_REDUCES",
		"Data-local map tasks": "DATA_LOCAL_MAPS", "Rack-local map tasks": "RACK_LOCAL_MAPS",
		"Failed map tasks": "NUM_FAILED_MAPS", "Failed reduce tasks": "NUM_FAILED_REDUCES",
		"Killed map tasks": "NUM_KILLED_MAPS", "Killed reduce tasks": "NUM_KILLED_REDUCES",
		"Map input records": "MAP_INPUT_RECORDS", "Map output records": "MAP_OUTPUT_RECORDS",
		"Map output bytes": "MAP_OUTPUT_BYTES", "Map output materialized bytes": "MAP_OUTPUT_MATERIALIZED_BYTES",
		"Input split bytes": "SPLIT_RAW_BYTES", "Combine input records": "COMBINE_INPUT_RECORDS",
		"Combine output records": "COMBINE_OUTPUT_RECORDS", "Reduce input groups": "REDUCE_INPUT_GROUPS",
		"Reduce shuffle bytes": "REDUCE_SHUFFLE_BYTES", "Reduce input records": "REDUCE_INPUT_RECORDS",
		"Reduce output records": "REDUCE_OUTPUT_RECORDS", "Spilled Records": "SPILLED_RECORDS",
		"Shuffled Maps": "SHUFFLED_MAPS", "Failed Shuffles": "FAILED_SHUFFLE", "Merged Map outputs": "MERGED_MAP_OUTPUTS",
		"GC time elapsed (ms)": "GC_TIME_MILLIS", "CPU time spent (ms)": "CPU_MILLISECONDS",
		"Physical memory (bytes) snapshot": "PHYSICAL_MEMORY_BYTES", "Virtual memory (bytes) snapshot": "VIRTUAL_MEMORY_BYTES",
		"Total committed heap usage (bytes)": "COMMITTED_HEAP_BYTES",
		"Bytes Read":                         "BYTES_READ", "Bytes Written": "BYTES_WRITTEN",
	}
	fsCounter = regexp.MustCompile(`^([A-Za-z0-9]+): Number of (bytes read|bytes written|read operations|large read operations|write operations)$`)
	fsSuffix  = map[string]string{"bytes read": "BYTES_READ", "bytes written": "BYTES_WRITTEN", "read operations": "READ_OPS",
		"large read operations": "LARGE_READ_OPS", "write operations": "WRITE_OPS"}
)

// counterName returns the enum name of a counter's display name.
func counterName(display string) string {
	if n, ok := counterNames[display]; ok {
		return n
	}
	if m := fsCounter.FindStringSubmatch(display); m != nil {
		return strings.ToUpper(m[1]) + "_" + fsSuffix[m[2]]
	}
	return strings.ToUpper(strings.Trim(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(display, "_"), "_"))
}

// ParseCounters reads the "Counters: N" block Hadoop prints after a job
// (mapred job -status, JobClient's job monitor): group lines, then
// "name=value" lines, indented.
func ParseCounters(text string) streaming.Counters {
	i := regexp.MustCompile(`(?m)Counters: \d+\s*$`).FindStringIndex(text)
	if i == nil {
		return nil
	}
	out := streaming.Counters{}
	group := ""
	for _, line := range strings.Split(text[i[1]:], "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if line[0] != ' ' && line[0] != '\t' {
			// A log prefix ("... INFO mapreduce.Job:") before the
			// indentation is Hadoop's logger; anything else ends the block.
			if j := strings.Index(line, ":\t"); j < 0 {
				break
			}
		}
		t := strings.TrimSpace(line)
		name, val, ok := strings.Cut(t, "=")
		if !ok {
			group = t
			if g, ok := counterGroups[t]; ok {
				group = g
			}
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil || group == "" {
			continue
		}
		for _, g := range []string{group, legacyGroups[group]} {
			if g == "" {
				continue
			}
			if out[g] == nil {
				out[g] = map[string]int64{}
			}
			out[g][counterName(strings.TrimSpace(name))] = n
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
