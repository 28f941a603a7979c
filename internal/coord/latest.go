package coord

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gozie/gozie/internal/el"
	"github.com/gozie/gozie/internal/hcaturi"
	"github.com/gozie/gozie/internal/schedule"
)

// URIVars returns the variables of a URI template for an instance time:
// YEAR, MONTH, DAY, HOUR and MINUTE, zero-padded, from the instance in the
// processing zone (spec: coord 5.1: templates resolve in the processing zone).
func URIVars(t time.Time, pz schedule.ProcessingZone) map[string]string {
	lt := t.In(pz.Location())
	return map[string]string{
		"YEAR":   fmt.Sprintf("%04d", lt.Year()),
		"MONTH":  fmt.Sprintf("%02d", int(lt.Month())),
		"DAY":    fmt.Sprintf("%02d", lt.Day()),
		"HOUR":   fmt.Sprintf("%02d", lt.Hour()),
		"MINUTE": fmt.Sprintf("%02d", lt.Minute()),
	}
}

// uriVars layers the instance variables over the job's.
type uriVars struct {
	inst time.Time // in the processing zone
	job  el.Resolver
}

func (v uriVars) Lookup(name string) (any, bool) {
	switch name {
	case "YEAR":
		return padInt(v.inst.Year(), 4), true
	case "MONTH":
		return padInt(int(v.inst.Month()), 2), true
	case "DAY":
		return padInt(v.inst.Day(), 2), true
	case "HOUR":
		return padInt(v.inst.Hour(), 2), true
	case "MINUTE":
		return padInt(v.inst.Minute(), 2), true
	}
	if v.job == nil {
		return nil, false
	}
	return v.job.Lookup(name)
}

// padInt prints a non-negative number with at least width digits.
func padInt(n, width int) string {
	var buf [8]byte
	i := len(buf)
	for n > 0 || width > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		width--
		if i == 0 {
			break
		}
	}
	return string(buf[i:])
}

// ResolveURI resolves a dataset's URI template for an instance time, with
// the job variables available to the template.
func ResolveURI(template string, t time.Time, pz schedule.ProcessingZone, job el.Resolver) (string, error) {
	vars := uriVars{inst: t.In(pz.Location()), job: job}
	if parts, ok := simpleTemplate(template); ok {
		// Templates are almost always literal text and ${NAME} references;
		// substituting them directly keeps range resolution well under a
		// microsecond per instance.
		var b strings.Builder
		b.Grow(len(template) + 8)
		c := civilOf(vars.inst)
		for _, p := range parts {
			if !p.ident {
				b.WriteString(p.text)
				continue
			}
			if writeTimeVar(&b, p.text, c) {
				continue
			}
			v, found := vars.Lookup(p.text)
			if !found {
				return "", fmt.Errorf("E1004: variable [%s] cannot be resolved in URI template %q", p.text, template)
			}
			b.WriteString(el.ToString(v))
		}
		return b.String(), nil
	}
	ev := &el.Evaluator{Funcs: Registry(PhaseURITemplate), Vars: vars}
	return ev.EvalString(template)
}

// civil is an instance time broken down once for URI templates.
type civil struct{ year, month, day, hour, minute int }

func civilOf(t time.Time) civil {
	y, m, d := t.Date()
	h, mi, _ := t.Clock()
	return civil{y, int(m), d, h, mi}
}

// writeTimeVar writes YEAR..MINUTE of c zero-padded without allocating,
// and reports whether name was one of them.
func writeTimeVar(b *strings.Builder, name string, c civil) bool {
	var v, width int
	switch name {
	case "YEAR":
		v, width = c.year, 4
	case "MONTH":
		v, width = c.month, 2
	case "DAY":
		v, width = c.day, 2
	case "HOUR":
		v, width = c.hour, 2
	case "MINUTE":
		v, width = c.minute, 2
	default:
		return false
	}
	var buf [8]byte
	i := len(buf)
	for v > 0 || width > 0 {
		if i == 0 {
			break
		}
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		width--
	}
	b.Write(buf[i:])
	return true
}

// resolveURIs resolves a template for several instances. The URIs of a
// simple template share one backing string: ranges resolve millions of
// them when a long job is materialized at once.
func resolveURIs(template string, ts []time.Time, pz schedule.ProcessingZone, job el.Resolver) ([]string, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	parts, ok := simpleTemplate(template)
	if !ok || len(ts) == 1 {
		out := make([]string, len(ts))
		for i, t := range ts {
			uri, err := ResolveURI(template, t, pz, job)
			if err != nil {
				return nil, err
			}
			out[i] = uri
		}
		return out, nil
	}
	var b strings.Builder
	b.Grow(len(ts) * (len(template) + 8))
	ends := make([]int, len(ts))
	for i, t := range ts {
		vars := uriVars{inst: t.In(pz.Location()), job: job}
		c := civilOf(vars.inst)
		for _, p := range parts {
			if !p.ident {
				b.WriteString(p.text)
				continue
			}
			if writeTimeVar(&b, p.text, c) {
				continue
			}
			v, found := vars.Lookup(p.text)
			if !found {
				return nil, fmt.Errorf("E1004: variable [%s] cannot be resolved in URI template %q", p.text, template)
			}
			b.WriteString(el.ToString(v))
		}
		ends[i] = b.Len()
	}
	all := b.String()
	out := make([]string, len(ts))
	start := 0
	for i, end := range ends {
		out[i] = all[start:end]
		start = end
	}
	return out, nil
}

// templatePart is literal text or a variable name of a simple template.
type templatePart struct {
	text  string
	ident bool
}

var simpleTemplates sync.Map // template -> []templatePart, or nil when not simple

// simpleTemplate splits a template made only of text and ${NAME} segments.
func simpleTemplate(template string) ([]templatePart, bool) {
	if v, ok := simpleTemplates.Load(template); ok {
		parts, _ := v.([]templatePart)
		return parts, parts != nil
	}
	var parts []templatePart
	tpl, err := el.Parse(template)
	if err == nil {
		for _, n := range tpl.Nodes {
			switch n := n.(type) {
			case *el.Text:
				parts = append(parts, templatePart{text: n.Text})
			case *el.Segment:
				id, ok := n.X.(*el.Ident)
				if !ok {
					parts = nil
					err = fmt.Errorf("not simple")
				} else {
					parts = append(parts, templatePart{text: id.Name, ident: true})
				}
			}
			if err != nil {
				break
			}
		}
	}
	if err != nil || parts == nil {
		simpleTemplates.Store(template, []templatePart(nil))
		return nil, false
	}
	simpleTemplates.Store(template, parts)
	return parts, true
}

// DoneFlagURI is the URI whose existence marks an instance complete: the
// instance URI plus "/_SUCCESS" by default, plus "/flag" for a named flag,
// or the instance URI itself for an empty flag. An HCatalog partition
// (hcat://) takes no flag: the partition is there or not, as Oozie's
// HCatURIHandler.getURIWithDoneFlag answers.
func DoneFlagURI(uri string, doneFlag *string) string {
	switch {
	case hcaturi.IsHCat(uri):
		return uri
	case doneFlag == nil:
		return uri + "/_SUCCESS"
	case *doneFlag == "":
		return uri
	}
	return uri + "/" + *doneFlag
}

// available reports whether instance k exists.
func (c *ELContext) available(in Instances, t time.Time) (bool, error) {
	if c.Exists == nil {
		return false, nil
	}
	uri, err := ResolveURI(in.DS.URITemplate, t, c.Processing, c.Vars)
	if err != nil {
		return false, err
	}
	return c.Exists(DoneFlagURI(uri, in.DS.DoneFlag)), nil
}

// latestFrom walks available instances backwards from the instance current
// at the action's actual time (or LatestAt), calling found with the
// availability count (0, -1, ...) of each; found returns false to stop.
func (c *ELContext) latestFrom(found func(avail int, t time.Time) bool) error {
	in := c.instances()
	if err := in.check(); err != nil {
		return err
	}
	at := in.Action.ActualTime
	if !c.LatestAt.IsZero() {
		at = c.LatestAt
	}
	k, ok := in.Index(at)
	if !ok {
		return nil
	}
	avail := 0
	for ; k >= 0; k-- {
		t := in.At(k)
		ok, err := c.available(in, t)
		if err != nil {
			return err
		}
		if ok {
			if !found(avail, t) {
				return nil
			}
			avail--
		}
	}
	return nil
}

func latestFn(ctx *ELContext, c *el.Call) (any, error) {
	n := int(c.Args[0].(int64))
	if n > 0 {
		return nil, fmt.Errorf("coord:latest(%d): for latest there is no meaning of a positive instance, n should be <= 0", n)
	}
	return ctx.nthAvailable(func(found func(int, time.Time) bool) error { return ctx.latestFrom(found) },
		n, fmt.Sprintf("${coord:latest(%d)}", n))
}

// nthAvailable returns the n-th available instance a walk (latestFrom or
// futureFrom) reaches, formatted; when the walk ends first the action is
// marked unresolved and the call's own text is returned, to be evaluated
// again at the next input check.
func (ctx *ELContext) nthAvailable(walk func(found func(avail int, t time.Time) bool) error, n int, unresolved string) (any, error) {
	var res string
	err := walk(func(avail int, t time.Time) bool {
		if avail == n {
			res = ctx.Processing.Format(t)
			return false
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if res == "" {
		ctx.Unresolved = true
		return unresolved, nil
	}
	return res, nil
}

func latestRangeFn(ctx *ELContext, c *el.Call) (any, error) {
	start, end := int(c.Args[0].(int64)), int(c.Args[1].(int64))
	if start > 0 || end > 0 || start > end {
		return nil, fmt.Errorf("coord:latestRange(%d, %d): instances must satisfy start <= end <= 0", start, end)
	}
	var ts []time.Time
	err := ctx.latestFrom(func(avail int, t time.Time) bool {
		if avail <= end && avail >= start {
			ts = append(ts, t)
		}
		return avail > start
	})
	if err != nil {
		return nil, err
	}
	if len(ts) != end-start+1 {
		ctx.Unresolved = true
		return fmt.Sprintf("${coord:latestRange(%d,%d)}", start, end), nil
	}
	return joinTimes(ts, ctx.Processing), nil
}

// futureFrom walks instances forwards from the instance current at the
// nominal time through limit+1 instances.
func (c *ELContext) futureFrom(limit int, found func(avail int, t time.Time) bool) error {
	in := c.instances()
	if err := in.check(); err != nil {
		return err
	}
	k, ok := in.Index(in.Action.NominalTime)
	if !ok {
		return nil
	}
	avail := 0
	for checked := 0; checked <= limit; checked, k = checked+1, k+1 {
		t := in.At(k)
		ok, err := c.available(in, t)
		if err != nil {
			return err
		}
		if ok {
			if !found(avail, t) {
				return nil
			}
			avail++
		}
	}
	return nil
}

func futureFn(ctx *ELContext, c *el.Call) (any, error) {
	n, limit := int(c.Args[0].(int64)), int(c.Args[1].(int64))
	if n < 0 {
		return nil, fmt.Errorf("coord:future(%d, %d): for future there is no meaning of a negative instance, n should be >= 0", n, limit)
	}
	return ctx.nthAvailable(func(found func(int, time.Time) bool) error { return ctx.futureFrom(limit, found) },
		n, fmt.Sprintf("${coord:future(%d, %d)}", n, limit))
}

func futureRangeFn(ctx *ELContext, c *el.Call) (any, error) {
	start, end, limit := int(c.Args[0].(int64)), int(c.Args[1].(int64)), int(c.Args[2].(int64))
	if start < 0 || start > end {
		return nil, fmt.Errorf("coord:futureRange(%d, %d, %d): instances must satisfy 0 <= start <= end", start, end, limit)
	}
	var ts []time.Time
	err := ctx.futureFrom(limit, func(avail int, t time.Time) bool {
		if avail >= start && avail <= end {
			ts = append([]time.Time{t}, ts...)
		}
		return avail < end
	})
	if err != nil {
		return nil, err
	}
	if len(ts) != end-start+1 {
		ctx.Unresolved = true
		return fmt.Sprintf("${coord:futureRange(%d,%d,'%d')}", start, end, limit), nil
	}
	return joinTimes(ts, ctx.Processing), nil
}
