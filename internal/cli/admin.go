package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gozie/gozie/internal/client"
)

// adminActions are the options of which `gozie admin` takes at most one.
var adminActions = []string{"status", "systemmode", "version", "queuedump", "servers", "configuration", "osenv",
	"javasysprops", "metrics", "instrumentation", "timezones", "shareliblist", "sharelibupdate", "purge"}

// runAdmin is `gozie admin`: server status and administration (cli.md §4).
func runAdmin(args []string, stdout, stderr io.Writer) int {
	if wantsBackup(args) {
		return runBackup(args, stdout, stderr)
	}
	fs := newFlagSet("admin", "-status|-systemmode MODE|-version|-queuedump|-servers|-configuration|-osenv|-javasysprops|-metrics|-instrumentation|-timezones|-shareliblist [REGEX]|-sharelibupdate|-purge OPTS [-oozie URL] | -backup FILE [-data DIR]", stdout)
	r := addRemoteFlags(fs, false)
	bools := map[string]*bool{}
	for _, name := range adminActions {
		switch name {
		case "systemmode", "purge":
		default:
			bools[name] = fs.Bool(name, false, "show the server's "+name)
		}
	}
	mode := fs.String("systemmode", "", "set the system mode: NORMAL, NOWEBSERVICE or SAFEMODE")
	purge := fs.String("purge", "", "purge old jobs: wf=DAYS;coord=DAYS;bundle=DAYS;limit=N;oldcoordaction=true|false")
	rest, code, done := parseRemote(fs, args, stdout, stderr)
	if done {
		return code
	}
	var chosen []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(adminActions, f.Name) {
			chosen = append(chosen, f.Name)
		}
	})
	byPosition(chosen, args)
	if len(chosen) > 1 {
		return invalidSubCommand(stderr, fmt.Sprintf("The option '%s' was specified but an option from this group has already been selected: '%s'", chosen[1], chosen[0]))
	}
	if len(rest) > 0 && !(len(chosen) == 1 && chosen[0] == "shareliblist" && len(rest) == 1) {
		return invalidSubCommand(stderr, fmt.Sprintf("unexpected argument [%s]", rest[0]))
	}
	if len(chosen) == 0 {
		return exitOK // as the oozie command: no option, nothing to do
	}
	c, err := r.client(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	a := &adminCmd{c: c, ctx: context.Background(), out: stdout, json: r.asJSON}
	var arg string
	switch chosen[0] {
	case "systemmode":
		arg = *mode
	case "purge":
		arg = *purge
	case "shareliblist":
		if len(rest) == 1 {
			arg = rest[0]
		}
	}
	if err := a.do(chosen[0], arg); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}

type adminCmd struct {
	c    *client.Client
	ctx  context.Context
	out  io.Writer
	json bool
}

// emit prints the raw answer for -json, or runs the formatter.
func (a *adminCmd) emit(raw []byte, err error, format func()) error {
	if err != nil {
		return err
	}
	if a.json {
		writeRaw(a.out, raw)
		return nil
	}
	format()
	return nil
}

func (a *adminCmd) do(op, arg string) error {
	c, ctx, w := a.c, a.ctx, a.out
	switch op {
	case "status":
		mode, raw, err := c.Status(ctx)
		return a.emit(raw, err, func() { fmt.Fprintln(w, "System mode: "+mode) })
	case "systemmode":
		m := strings.ToUpper(arg)
		if !slices.Contains([]string{"NORMAL", "NOWEBSERVICE", "SAFEMODE"}, m) {
			return userError("Invalid input provided for option: systemmode value given :" + m +
				" Expected values are: NORMAL/NOWEBSERVICE/SAFEMODE ")
		}
		if err := c.SetSystemMode(ctx, m); err != nil {
			return err
		}
		fmt.Fprintln(w, "System mode: "+m)
		return nil
	case "version":
		_, info, raw, err := c.BuildVersion(ctx)
		return a.emit(raw, err, func() {
			// The oozie CLI prints the buildInfo object as json-simple
			// writes it back: HashMap key order, '/' escaped.
			text, jerr := javaJSONText(info)
			if jerr != nil || len(bytes.TrimSpace(info)) == 0 {
				text = "null"
			}
			fmt.Fprintln(w, "Oozie server build version: "+text)
		})
	case "queuedump":
		q, raw, err := c.QueueDump(ctx)
		return a.emit(raw, err, func() { printQueueDump(w, q) })
	case "servers":
		m, raw, err := c.Servers(ctx)
		return a.emit(raw, err, func() { printSorted(w, m) })
	case "configuration":
		m, raw, err := c.Configuration(ctx)
		return a.emit(raw, err, func() { printSorted(w, m) })
	case "osenv":
		m, raw, err := c.OSEnv(ctx)
		return a.emit(raw, err, func() { printSorted(w, m) })
	case "javasysprops":
		m, raw, err := c.JavaSysProps(ctx)
		return a.emit(raw, err, func() { printSorted(w, m) })
	case "timezones":
		zs, raw, err := c.Timezones(ctx)
		return a.emit(raw, err, func() {
			for _, z := range zs {
				fmt.Fprintln(w, z.DisplayName)
			}
		})
	case "metrics":
		m, raw, err := c.Metrics(ctx)
		if errors.Is(err, client.ErrUnavailable) {
			fmt.Fprintln(w, "Metrics are unavailable.  Try Instrumentation (-instrumentation) instead")
			return nil
		}
		return a.emit(raw, err, func() { printMetrics(w, m) })
	case "instrumentation":
		in, raw, err := c.Instrumentation(ctx)
		if errors.Is(err, client.ErrUnavailable) {
			fmt.Fprintln(w, "Instrumentation is unavailable.  Try Metrics (-metrics) instead")
			return nil
		}
		return a.emit(raw, err, func() { printInstrumentation(w, in, raw) })
	case "shareliblist":
		libs, raw, err := c.ListShareLib(ctx, arg)
		return a.emit(raw, err, func() {
			fmt.Fprintln(w, "[Available ShareLib]")
			for _, l := range libs {
				fmt.Fprintln(w, l.Name)
				for _, f := range l.Files {
					fmt.Fprintln(w, "\t"+f)
				}
			}
			// The oozie CLI prints the list, which ends with a line
			// break, with println: a blank line ends it.
			fmt.Fprintln(w)
		})
	case "sharelibupdate":
		reports, raw, err := c.UpdateShareLib(ctx)
		return a.emit(raw, err, func() {
			fmt.Fprintln(w, "[ShareLib update status]")
			for _, r := range reports {
				for _, k := range sortedKeys(r) {
					fmt.Fprintf(w, "\t%s = %s\n", k, r[k])
				}
				fmt.Fprintln(w)
			}
		})
	case "purge":
		p, err := parsePurge(arg)
		if err != nil {
			return err
		}
		msg, raw, err := c.Purge(ctx, p["wf"], p["coord"], p["bundle"], p["limit"], p["oldcoordaction"])
		return a.emit(raw, err, func() { fmt.Fprintln(w, msg) })
	}
	return userError("unknown admin operation -" + op)
}

// parsePurge checks the -purge option text: wf, coord, bundle and limit
// positive integers, oldcoordaction true or false; keys in any case.
func parsePurge(s string) (map[string]string, error) {
	out := map[string]string{}
	for tok := range strings.SplitSeq(s, ";") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		k, v, ok := strings.Cut(tok, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok || v == "" {
			return nil, &client.CallError{Code: "INVALID_INPUT", Message: fmt.Sprintf("Invalid purge option pair [%s] specified.", tok)}
		}
		switch k {
		case "wf", "coord", "bundle", "limit":
			if n, err := strconv.Atoi(v); err != nil || n <= 0 {
				return nil, &client.CallError{Code: "INVALID_INPUT", Message: fmt.Sprintf("Invalid purge option [%s] specified.", tok)}
			}
		case "oldcoordaction":
			if v != "true" && v != "false" {
				return nil, &client.CallError{Code: "INVALID_INPUT", Message: fmt.Sprintf("Invalid purge option [%s] specified.", tok)}
			}
		default:
			return nil, &client.CallError{Code: "INVALID_INPUT", Message: fmt.Sprintf("Invalid purge option [%s] specified.", k)}
		}
		out[k] = v
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// printSorted prints "key : value" lines in key order.
func printSorted(w io.Writer, m map[string]string) {
	for _, k := range sortedKeys(m) {
		fmt.Fprintf(w, "%s : %s\n", k, m[k])
	}
}

const stars = "******************************************"

func printQueueDump(w io.Writer, q *client.QueueDump) {
	fmt.Fprintln(w, stars)
	fmt.Fprintln(w, "[Server Queue Dump]:")
	for _, e := range q.Queue {
		fmt.Fprintln(w, e.CallableDump)
	}
	if len(q.Queue) == 0 {
		fmt.Fprintln(w, "The queue dump is empty, nothing to display.")
	}
	fmt.Fprintln(w, stars)
	fmt.Fprintln(w, "[Server Uniqueness Map Dump]:")
	for _, e := range q.UniqueMap {
		fmt.Fprintln(w, e.UniqueEntryDump)
	}
	if len(q.UniqueMap) == 0 {
		fmt.Fprintln(w, "The uniqueness map dump is empty, nothing to display.")
	}
	fmt.Fprintln(w, stars)
}

// jsonText renders a decoded JSON value as Java's toString would: numbers
// without exponent noise, strings bare.
func jsonText(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// metric sub-keys in the order printed, with their labels.
var (
	statKeys = [][2]string{{"p999", "999th percentile"}, {"p99", "99th percentile"}, {"p98", "98th percentile"},
		{"p95", "95th percentile"}, {"p75", "75th percentile"}, {"p50", "50th percentile"}, {"mean", "Mean"},
		{"max", "Max"}, {"min", "Min"}, {"count", "Count"}, {"stddev", "Standard Deviation"}}
	rateKeys = [][2]string{{"m1_rate", "1 Minute Rate"}, {"m5_rate", "5 Minute Rate"}, {"m15_rate", "15 Minute Rate"},
		{"mean_rate", "Mean Rate"}, {"duration_units", "duration units"}, {"rate_units", "rate units"}}
)

func printMetrics(w io.Writer, m *client.Metrics) {
	fmt.Fprintln(w, "COUNTERS")
	fmt.Fprintln(w, "--------")
	for _, k := range sortedKeys(m.Counters) {
		fmt.Fprintf(w, "%s : %d\n", k, m.Counters[k].Count)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "GAUGES")
	fmt.Fprintln(w, "------")
	for _, k := range sortedKeys(m.Gauges) {
		fmt.Fprintf(w, "%s : %s\n", k, jsonText(m.Gauges[k].Value))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "TIMERS")
	fmt.Fprintln(w, "------")
	for _, k := range sortedKeys(m.Timers) {
		fmt.Fprintln(w, k)
		for _, sk := range append(slices.Clone(statKeys), rateKeys...) {
			fmt.Fprintf(w, "\t%s : %s\n", sk[1], jsonText(m.Timers[k][sk[0]]))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "HISTOGRAMS")
	fmt.Fprintln(w, "----------")
	for _, k := range sortedKeys(m.Histograms) {
		fmt.Fprintln(w, k)
		for _, sk := range statKeys {
			fmt.Fprintf(w, "\t%s : %s\n", sk[1], jsonText(m.Histograms[k][sk[0]]))
		}
	}
}

// timer fields of instrumentation, in the order printed.
var instTimerKeys = [][2]string{{"ownTimeStdDev", "own time standard deviation"}, {"ownTimeAvg", "own average time"},
	{"ownMaxTime", "own max time"}, {"ownMinTime", "own min time"}, {"totalTimeStdDev", "total time standard deviation"},
	{"totalTimeAvg", "total average time"}, {"totalMaxTime", "total max time"}, {"totalMinTime", "total min time"},
	{"ticks", "ticks"}}

// instGroup is one group of an instrumentation section with its values as
// the JSON wrote them.
type instGroup struct {
	Group string                       `json:"group"`
	Data  []map[string]json.RawMessage `json:"data"`
}

// printInstrumentation prints the sections as the oozie CLI does: each
// heading over a dash rule (nine dashes under all but COUNTERS, as Oozie
// prints them), a blank line before each heading but the first and none
// at the end, entries "<group>.<name> : <value>" sorted by key, counters
// as Java longs, samplers as Java doubles, variables as the Long, Double
// or String the JSON holds. raw, read again with numbers kept as written,
// tells an integer from a decimal.
func printInstrumentation(w io.Writer, in *client.Instrumentation, raw []byte) {
	var exact struct {
		Counters, Variables, Samplers []instGroup
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	_ = dec.Decode(&exact)
	type entry struct{ name, value string }
	valueText := func(v json.RawMessage, double bool) string {
		var x any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if d.Decode(&x) != nil {
			return string(v)
		}
		switch t := x.(type) {
		case json.Number:
			if double {
				f, err := t.Float64()
				if err != nil {
					return t.String()
				}
				return javaDouble(f)
			}
			return javaNumber(t)
		case string:
			return t
		case nil:
			return "null"
		}
		text, err := javaJSONText(v)
		if err != nil {
			return string(v)
		}
		return text
	}
	section := func(title, rule string, groups []instGroup, double bool) {
		fmt.Fprintln(w, title)
		fmt.Fprintln(w, rule)
		var es []entry
		for _, g := range groups {
			for _, d := range g.Data {
				var name string
				_ = json.Unmarshal(d["name"], &name)
				es = append(es, entry{g.Group + "." + name, valueText(d["value"], double)})
			}
		}
		slices.SortFunc(es, func(a, b entry) int { return strings.Compare(a.name, b.name) })
		for _, e := range es {
			fmt.Fprintf(w, "%s : %s\n", e.name, e.value)
		}
	}
	section("COUNTERS", "--------", exact.Counters, false)
	fmt.Fprintln(w)
	section("VARIABLES", "---------", exact.Variables, false)
	fmt.Fprintln(w)
	section("SAMPLERS", "---------", exact.Samplers, true)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "TIMERS")
	fmt.Fprintln(w, "---------")
	type timer struct {
		name string
		data map[string]any
	}
	var ts []timer
	for _, g := range in.Timers {
		for _, d := range g.Data {
			ts = append(ts, timer{g.Group + "." + jsonText(d["name"]), d})
		}
	}
	slices.SortFunc(ts, func(a, b timer) int { return strings.Compare(a.name, b.name) })
	for _, t := range ts {
		fmt.Fprintln(w, t.name)
		for _, k := range instTimerKeys {
			fmt.Fprintf(w, "\t%s : %s\n", k[1], jsonText(t.data[k[0]]))
		}
	}
}
