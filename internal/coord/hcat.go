package coord

import (
	"fmt"
	"strings"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/hcaturi"
)

// The coord: functions of HCatalog datasets (spec: coord 6.8), in Oozie's
// two phases (HCatELFunctions): at submission (coord-job-submit-data) each
// checks that its first argument names a data-in or data-out and echoes
// itself back for later; at start (coord-action-start) each reads the
// action's resolved URIs of that event (.datain.<name>, .dataout.<name>)
// and answers from the first URI (database, table) or all of them
// (filter, min, max). Materialization keeps them as written (startOnly).

// dataNamePrefix is the evaluator variable, "oozie.dataname.<name>", that
// says whether <name> is a "data-in" or a "data-out" of the application,
// as Oozie's submission sets it.
const dataNamePrefix = "oozie.dataname."

// hcatFuncs are the names of the HCatalog functions, each with its
// parameter count.
var hcatFuncs = []struct {
	name   string
	params []el.Type
}{
	{"databaseIn", s1}, {"databaseOut", s1}, {"tableIn", s1}, {"tableOut", s1},
	{"dataInPartitionFilter", s2}, {"dataInPartitionMin", s2}, {"dataInPartitionMax", s2},
	{"dataInPartitions", s2}, {"dataOutPartitions", s1}, {"dataOutPartitionValue", s2},
}

func init() {
	for _, f := range hcatFuncs {
		startOnly[f.name] = true
	}
}

// hcatEchoes are the submission-phase forms: the name must be a data
// event's, the call comes back as text ("coord:tableIn('raw')").
func hcatEchoes() []fn {
	out := make([]fn, 0, len(hcatFuncs))
	for _, f := range hcatFuncs {
		e := echo(f.name, f.params, quoteAll)
		inner := e.impl
		e.impl = func(c *el.Call) (any, error) {
			ctx, err := ctxOf(c)
			if err != nil {
				return nil, err
			}
			name := el.ToString(c.Args[0])
			v, _ := ctx.lookup(dataNamePrefix + name)
			if s := el.ToString(v); s != "data-in" && s != "data-out" {
				return nil, fmt.Errorf("data set name %s is not valid: coord:%s takes the name of a data-in or data-out", name, f.name)
			}
			return inner(c)
		}
		out = append(out, e)
	}
	return out
}

// hcatStart are the start-phase forms.
func hcatStart() []fn {
	part := func(get func(*hcaturi.URI) string) func(*ELContext, *el.Call) (any, error) {
		return func(ctx *ELContext, c *el.Call) (any, error) {
			us, echo, err := ctx.hcatURIs(c)
			if err != nil || echo != "" {
				return echo, err
			}
			return get(us[0]), nil
		}
	}
	db := func(u *hcaturi.URI) string { return u.DB }
	table := func(u *hcaturi.URI) string { return u.Table }
	return []fn{
		{"databaseIn", s1, withContext(part(db))}, {"databaseOut", s1, withContext(part(db))},
		{"tableIn", s1, withContext(part(table))}, {"tableOut", s1, withContext(part(table))},
		{"dataInPartitionFilter", s2, withContext(partitionFilterFn)},
		{"dataInPartitionMin", s2, withContext(partitionBoundFn(-1))},
		{"dataInPartitionMax", s2, withContext(partitionBoundFn(+1))},
		{"dataInPartitions", s2, withContext(dataInPartitionsFn)},
		{"dataOutPartitions", s1, withContext(dataOutPartitionsFn)},
		{"dataOutPartitionValue", s2, withContext(dataOutPartitionValueFn)},
	}
}

// isInput reports whether an HCatalog function reads a data-in.
func isInput(fn string) bool { return strings.HasSuffix(fn, "In") || strings.HasPrefix(fn, "dataIn") }

// hcatURIs returns the parsed URIs of the data event the call names (its
// first argument; a data-in for the *In and dataIn* functions, else a
// data-out), or, while that event still has unresolved latest/future
// instances, the call itself as ${...} text for a later evaluation
// (Oozie's ph3 echo).
func (ctx *ELContext) hcatURIs(c *el.Call) ([]*hcaturi.URI, string, error) {
	name := c.Args[0].(string)
	prefix := ".dataout."
	if isInput(c.Name) {
		prefix = ".datain."
	}
	if u, ok := ctx.lookup(prefix + name + ".unresolved"); ok && strings.EqualFold(el.ToString(u), "true") {
		args := make([]string, len(c.Args))
		for i, a := range c.Args {
			args[i] = el.ToString(a)
		}
		return nil, "${coord:" + c.Name + "(" + quoteAll(args) + ")}", nil
	}
	v, _ := ctx.lookup(prefix + name)
	list := splitURIs(el.ToString(v))
	if len(list) == 0 {
		return nil, "", fmt.Errorf("coord:%s: %s [%s] has no dataset instance", c.Name, strings.Trim(prefix, "."), name)
	}
	out := make([]*hcaturi.URI, len(list))
	for i, s := range list {
		u, err := hcaturi.Parse(s)
		if err != nil {
			return nil, "", fmt.Errorf("coord:%s: HCat URI can't be parsed: %w", c.Name, err)
		}
		out[i] = u
	}
	return out, "", nil
}

// splitURIs splits the comma-separated URIs of a data event. A comma
// also separates the metastores of one hcat:// authority, so a new URI
// starts only where a scheme:// follows the comma.
func splitURIs(s string) []string {
	if s = strings.TrimSpace(s); s == "" {
		return nil
	}
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ',' && startsURI(s[i+1:]) {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// startsURI reports whether s begins with scheme://.
func startsURI(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.HasPrefix(s[i:], "://")
		default:
			return false
		}
	}
	return false
}

// partitionFilterFn is coord:dataInPartitionFilter(name, type): the
// filters of every input URI joined with OR (spec: coord 6.8.3).
func partitionFilterFn(ctx *ELContext, c *el.Call) (any, error) {
	us, echo, err := ctx.hcatURIs(c)
	if err != nil || echo != "" {
		return echo, err
	}
	parts := make([]string, len(us))
	for i, u := range us {
		parts[i] = u.Filter(c.Args[1].(string))
	}
	return strings.Join(parts, " OR "), nil
}

// partitionBoundFn is coord:dataInPartitionMin (sign -1) and
// coord:dataInPartitionMax (+1): the least or greatest value of one
// partition key over the input URIs, compared as strings, as Oozie does
// (values like 20120101T0300Z are not numbers).
func partitionBoundFn(sign int) func(*ELContext, *el.Call) (any, error) {
	return func(ctx *ELContext, c *el.Call) (any, error) {
		us, echo, err := ctx.hcatURIs(c)
		if err != nil || echo != "" {
			return echo, err
		}
		key := c.Args[1].(string)
		var best string
		for i, u := range us {
			v, ok := u.Value(key)
			if !ok || v == "" {
				return nil, fmt.Errorf("coord:%s: No value in data-in uri for partition key: %s (%s)", c.Name, key, u)
			}
			if i == 0 || strings.Compare(v, best) == sign {
				best = v
			}
		}
		return best, nil
	}
}

// dataInPartitionsFn is coord:dataInPartitions(name, type): the whole
// partition specification of the one input instance (spec: coord 6.8.8).
func dataInPartitionsFn(ctx *ELContext, c *el.Call) (any, error) {
	us, echo, err := ctx.hcatURIs(c)
	if err != nil || echo != "" {
		return echo, err
	}
	typ := c.Args[1].(string)
	if typ != "hive-export" {
		return nil, fmt.Errorf("coord:dataInPartitions: Unsupported type: %s dataset name: %s (the only type is hive-export)", typ, c.Args[0])
	}
	if len(us) > 1 {
		return nil, fmt.Errorf("coord:dataInPartitions: Multiple partitions not supported for hive-export type. Dataset name: %s, %d instances", c.Args[0], len(us))
	}
	return us[0].ValueString(typ)
}

// oneOutput is the URI of a data-out, which names one instance.
func (ctx *ELContext) oneOutput(c *el.Call) (*hcaturi.URI, string, error) {
	us, echo, err := ctx.hcatURIs(c)
	if err != nil || echo != "" {
		return nil, echo, err
	}
	if len(us) > 1 {
		return nil, "", fmt.Errorf("coord:%s: data-out [%s] has %d instances, one expected", c.Name, c.Args[0], len(us))
	}
	return us[0], "", nil
}

// dataOutPartitionsFn is coord:dataOutPartitions(name): 'k1=v1,k2=v2',
// HCatStorer's argument (spec: coord 6.8.4).
func dataOutPartitionsFn(ctx *ELContext, c *el.Call) (any, error) {
	u, echo, err := ctx.oneOutput(c)
	if err != nil || echo != "" {
		return echo, err
	}
	return u.StorerString(), nil
}

// dataOutPartitionValueFn is coord:dataOutPartitionValue(name, key): the
// value of key in the output partition, "" when it has none (spec: coord
// 6.8.7).
func dataOutPartitionValueFn(ctx *ELContext, c *el.Call) (any, error) {
	u, echo, err := ctx.oneOutput(c)
	if err != nil || echo != "" {
		return echo, err
	}
	v, _ := u.Value(c.Args[1].(string))
	return v, nil
}

// dataNameVars answers the "oozie.dataname.<name>" variables of the
// submission phase from the application's data events, and nothing else
// under that prefix; other names go to job.
type dataNameVars struct {
	names map[string]string
	job   el.Resolver
}

func (v dataNameVars) Lookup(name string) (any, bool) {
	if rest, ok := strings.CutPrefix(name, dataNamePrefix); ok {
		kind, ok := v.names[rest]
		return kind, ok
	}
	if v.job == nil {
		return nil, false
	}
	return v.job.Lookup(name)
}

// withDataNames layers the data event names of a over vars, for the
// action configuration's submission phase.
func (a *App) withDataNames(vars el.Resolver) el.Resolver {
	names := map[string]string{}
	for _, ev := range a.Inputs {
		names[ev.Name] = "data-in"
	}
	for _, ev := range a.Outputs {
		names[ev.Name] = "data-out"
	}
	return dataNameVars{names: names, job: vars}
}
