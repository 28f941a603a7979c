package el

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Resolver supplies the variables of an evaluation. A variable that exists
// with a nil value (ok true) is null, which is not the same as undefined.
type Resolver interface {
	Lookup(name string) (any, bool)
}

// MapVars is a Resolver over a map.
type MapVars map[string]any

// Lookup implements Resolver.
func (m MapVars) Lookup(name string) (any, bool) {
	v, ok := m[name]
	return v, ok
}

// Properties lets a Go value take part in EL property access (x.name,
// x['name']) without being a map, for values that compute entries on
// demand, such as counters that read 0 when undefined. A false ok makes the
// access yield null, like a missing map key.
type Properties interface {
	Property(name string) (any, bool)
}

// Evaluator evaluates EL texts. The zero value evaluates with no functions
// and no variables. An Evaluator may be used concurrently if its Resolver
// and Context are safe for concurrent reads.
type Evaluator struct {
	Funcs   *Registry // functions and constants; nil means none
	Vars    Resolver  // variables; nil means none
	Context any       // handed to functions as Call.Context
	// Now is the clock functions read through Call.Now. Nil falls back to
	// the system clock; tests and replays set it.
	Now func() time.Time
	// NoXMLEscape leaves the results of toJsonStr, toPropertiesStr and
	// toConfigurationStr unescaped. Oozie escapes them because it
	// evaluates EL in an action's XML text and parses that text once
	// more, which takes the escaping off again: the program gets
	// {"a":"b"}. An evaluator whose results are stored into an already
	// parsed tree (the engine resolving an action body) is never
	// re-parsed, so it sets this to give the program the same text.
	NoXMLEscape bool
}

// Eval evaluates text. When text is exactly one ${} segment the result is
// the expression's own value (int64, float64, bool, nil, string, map...);
// otherwise it is the string concatenation of the segments.
func (e *Evaluator) Eval(text string) (any, error) {
	t, err := cachedParse(text)
	if err != nil {
		return nil, err
	}
	return e.EvalTemplate(t)
}

// EvalString evaluates text and coerces the result to a string.
func (e *Evaluator) EvalString(text string) (string, error) {
	t, err := cachedParse(text)
	if err != nil {
		return "", err
	}
	if len(t.Nodes) == 1 {
		if s, ok := t.Nodes[0].(*Segment); ok {
			v, err := e.evalSegment(t, s)
			if err != nil {
				return "", err
			}
			return ToString(v), nil
		}
	}
	return e.concat(t)
}

// EvalBool evaluates a decision predicate and coerces the result with the
// EL Boolean rules: "true" in any case is true, null and other strings are
// false, a number is an error.
func (e *Evaluator) EvalBool(text string) (bool, error) {
	v, err := e.Eval(text)
	if err != nil {
		return false, err
	}
	b, err := toBool(v)
	if err != nil {
		return false, newError(text, 0, err.Error(), nil)
	}
	return b, nil
}

// EvalTemplate evaluates an already parsed template, with the result rules
// of Eval.
func (e *Evaluator) EvalTemplate(t *Template) (any, error) {
	if len(t.Nodes) == 1 {
		if s, ok := t.Nodes[0].(*Segment); ok {
			return e.evalSegment(t, s)
		}
	}
	return e.concat(t)
}

func (e *Evaluator) evalSegment(t *Template, s *Segment) (any, error) {
	v, err := e.eval(s.X)
	if err != nil {
		return nil, wrap(t.text, err)
	}
	return v, nil
}

func (e *Evaluator) concat(t *Template) (string, error) {
	if t.literal {
		return t.lit, nil
	}
	var b strings.Builder
	for _, n := range t.Nodes {
		var s string
		switch n := n.(type) {
		case *Text:
			s = n.Text
		case *Segment:
			v, err := e.evalSegment(t, n)
			if err != nil {
				return "", err
			}
			s = ToString(v)
		}
		// Checked as it grows: a text of many segments of one large
		// variable must fail before it is built.
		if err := checkLen("text", b.Len()+len(s)); err != nil {
			return "", wrap(t.text, err)
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// lookup resolves an identifier: variables first, so a job property can
// shadow a constant, then the registry's constants.
func (e *Evaluator) lookup(name string) (any, bool) {
	if e.Vars != nil {
		if v, ok := e.Vars.Lookup(name); ok {
			return normalize(v), true
		}
	}
	if e.Funcs != nil {
		if v, ok := e.Funcs.consts[name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (e *Evaluator) eval(x Expr) (any, error) {
	switch n := x.(type) {
	case *Literal:
		return n.Value, nil
	case *Ident:
		v, ok := e.lookup(n.Name)
		if !ok {
			return nil, newEvalError(n.Offset, "variable [%s] cannot be resolved", n.Name)
		}
		return v, nil
	case *CallExpr:
		return e.call(n)
	case *Index:
		return e.index(n)
	case *Unary:
		return e.unary(n)
	case *Binary:
		return e.binary(n)
	case *Conditional:
		c, err := e.eval(n.Cond)
		if err != nil {
			return nil, err
		}
		b, err := toBool(c)
		if err != nil {
			return nil, atNode(n.Cond, err)
		}
		if b {
			return e.eval(n.Then)
		}
		return e.eval(n.Else)
	}
	return nil, fmt.Errorf("unknown node %T", x)
}

// atNode attaches a node's position to a coercion error.
func atNode(n Node, err error) error {
	var ee *evalError
	if errors.As(err, &ee) {
		return err
	}
	return &evalError{off: n.Pos(), msg: err.Error()}
}

func (e *Evaluator) call(n *CallExpr) (any, error) {
	var def funcDef
	ok := false
	if e.Funcs != nil {
		def, ok = e.Funcs.funcs[n.key]
	}
	if !ok {
		if n.Prefix == "" {
			// Jasper reads an unknown un-prefixed call as a lambda stored in
			// a variable of that name, so Oozie reports the variable.
			if _, defined := e.lookup(n.Name); !defined {
				return nil, newEvalError(n.Offset, "variable [%s] cannot be resolved", n.Name)
			}
		}
		return nil, newEvalError(n.Offset, "function [%s] not found", n.key)
	}
	if len(n.Args) != len(def.params) {
		return nil, newEvalError(n.Offset, "function [%s] takes %d arguments, %d given", n.key, len(def.params), len(n.Args))
	}
	c := &Call{Prefix: n.Prefix, Name: n.Name, Context: e.Context, ev: e}
	if len(n.Args) > 0 {
		c.Args = make([]any, len(n.Args))
		for i, a := range n.Args {
			v, err := e.eval(a)
			if err != nil {
				return nil, err
			}
			if c.Args[i], err = coerceArg(v, def.params[i]); err != nil {
				return nil, atNode(a, fmt.Errorf("argument %d of %s: %w", i+1, n.key, err))
			}
		}
	}
	v, err := def.fn(c)
	if err != nil {
		if AsError(err) != nil {
			return nil, err
		}
		return nil, &evalError{off: n.Offset, msg: n.key + ": " + err.Error(), err: err}
	}
	return normalize(v), nil
}

// index implements x.name and x[key]: maps yield the entry or null, lists
// take an integer index (out of range is null), null yields null and
// anything else is an error, as with Jasper's resolvers.
func (e *Evaluator) index(n *Index) (any, error) {
	base, err := e.eval(n.X)
	if err != nil {
		return nil, err
	}
	key, err := e.eval(n.Key)
	if err != nil {
		return nil, err
	}
	if base == nil {
		return nil, nil
	}
	switch b := base.(type) {
	case map[string]any:
		if k, ok := key.(string); ok {
			return normalize(b[k]), nil
		}
		return nil, nil
	case map[string]string:
		if k, ok := key.(string); ok {
			if v, ok := b[k]; ok {
				return v, nil
			}
		}
		return nil, nil
	case Properties:
		v, ok := b.Property(ToString(key))
		if !ok {
			return nil, nil
		}
		return normalize(v), nil
	case string, bool, int64, float64:
		return nil, newEvalError(n.Offset, "Property [%s] not found on type [%s]", ToString(key), typeName(base))
	}
	rv := reflect.ValueOf(base)
	switch rv.Kind() {
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, newEvalError(n.Offset, "maps with non-string keys are not supported")
		}
		k, ok := key.(string)
		if !ok {
			return nil, nil
		}
		v := rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key()))
		if !v.IsValid() {
			return nil, nil
		}
		return normalize(v.Interface()), nil
	case reflect.Slice, reflect.Array:
		i, err := toLong(key)
		if err != nil {
			return nil, atNode(n.Key, err)
		}
		if i < 0 || i >= int64(rv.Len()) {
			return nil, nil
		}
		return normalize(rv.Index(int(i)).Interface()), nil
	}
	return nil, newEvalError(n.Offset, "Property [%s] not found on type [%s]", ToString(key), typeName(base))
}

func (e *Evaluator) unary(n *Unary) (any, error) {
	v, err := e.eval(n.X)
	if err != nil {
		return nil, err
	}
	switch n.Op {
	case OpEmpty:
		return isEmpty(v), nil
	case OpNot:
		b, err := toBool(v)
		if err != nil {
			return nil, atNode(n, err)
		}
		return !b, nil
	}
	// unary minus
	switch x := v.(type) {
	case nil:
		return int64(0), nil
	case int64:
		return -x, nil
	case float64:
		return -x, nil
	case string:
		if looksFloat(x) {
			f, err := toDouble(x)
			if err != nil {
				return nil, atNode(n, err)
			}
			return -f, nil
		}
		i, err := toLong(x)
		if err != nil {
			return nil, atNode(n, err)
		}
		return -i, nil
	}
	return nil, atNode(n, cannotConvert(v, "java.lang.Number"))
}

func (e *Evaluator) binary(n *Binary) (any, error) {
	x, err := e.eval(n.X)
	if err != nil {
		return nil, err
	}
	if n.Op == OpAnd || n.Op == OpOr {
		b, err := toBool(x)
		if err != nil {
			return nil, atNode(n.X, err)
		}
		if b == (n.Op == OpOr) {
			return b, nil // short circuit
		}
		y, err := e.eval(n.Y)
		if err != nil {
			return nil, err
		}
		b, err = toBool(y)
		if err != nil {
			return nil, atNode(n.Y, err)
		}
		return b, nil
	}
	y, err := e.eval(n.Y)
	if err != nil {
		return nil, err
	}
	var v any
	switch n.Op {
	case OpAdd, OpSub, OpMul:
		v, err = arith(n.Op, x, y)
	case OpDiv:
		v, err = divide(x, y)
	case OpMod:
		v, err = modulo(x, y)
	case OpEq, OpNe:
		var eq bool
		eq, err = equal(x, y)
		v = eq == (n.Op == OpEq)
	default:
		v, err = compare(n.Op, x, y)
	}
	if err != nil {
		return nil, atNode(n, err)
	}
	return v, nil
}

// SLAUnits adds the duration constants of the SLA evaluators to vars:
// MINUTES, HOURS and DAYS count minutes, so ${2 * HOURS} is 120. A
// variable of vars with one of those names wins, as in Oozie, where the
// job's properties come first.
func SLAUnits(vars Resolver) Resolver { return slaUnits{vars} }

type slaUnits struct{ vars Resolver }

func (v slaUnits) Lookup(name string) (any, bool) {
	if v.vars != nil {
		if val, ok := v.vars.Lookup(name); ok {
			return val, true
		}
	}
	switch name {
	case "MINUTES":
		return int64(1), true
	case "HOURS":
		return int64(60), true
	case "DAYS":
		return int64(24 * 60), true
	}
	return nil, false
}
