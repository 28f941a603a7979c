package el

import (
	"fmt"
	"sort"
	"time"
)

// Type is the declared type of a function parameter. The evaluator coerces
// each argument to its parameter's type with the EL rules before the call,
// the way Java EL converts arguments to a method's Java parameter types.
type Type int

// Parameter types.
const (
	Any    Type = iota // java.lang.Object: the raw value, nil included
	String             // java.lang.String: nil becomes ""
	Long               // long/int: numeric coercion, nil and "" become 0
	Double             // double: numeric coercion, nil and "" become 0.0
	Bool               // boolean: "true" (any case) is true, nil and "" false
)

// String returns the Java name of the type, used in error messages.
func (t Type) String() string {
	switch t {
	case String:
		return "java.lang.String"
	case Long:
		return "long"
	case Double:
		return "double"
	case Bool:
		return "boolean"
	}
	return "java.lang.Object"
}

// Func implements an EL function. It receives its arguments already
// coerced to the declared parameter types (a String parameter always holds
// a string, Long an int64, Double a float64, Bool a bool) and returns a
// value of one of the EL value types.
type Func func(c *Call) (any, error)

// Call is what a Func sees of the call being made.
type Call struct {
	Prefix, Name string
	Args         []any
	// Context is Evaluator.Context: the job, action or coordinator state the
	// functions of a phase work on.
	Context any
	ev      *Evaluator
}

// Now returns the evaluator's clock reading; functions use it instead of
// reading the system clock so that evaluation stays reproducible.
func (c *Call) Now() time.Time {
	if c.ev != nil && c.ev.Now != nil {
		return c.ev.Now()
	}
	return time.Now()
}

// Lookup resolves a variable the way an identifier in the expression would,
// for functions that read job properties or evaluator variables.
func (c *Call) Lookup(name string) (any, bool) {
	if c.ev == nil {
		return nil, false
	}
	return c.ev.lookup(name)
}

// Evaluator returns the evaluator running the call (nil for direct calls),
// so a function can evaluate further EL text with the same setup.
func (c *Call) Evaluator() *Evaluator { return c.ev }

type funcDef struct {
	params []Type
	fn     Func
}

// Registry holds the functions (by namespace) and constants of one EL
// phase. Build it once, then share it: lookups are read-only and safe for
// concurrent use as long as nobody calls Define or Const meanwhile.
type Registry struct {
	funcs  map[string]funcDef
	consts map[string]any
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{funcs: map[string]funcDef{}, consts: map[string]any{}}
}

// Define registers fn as prefix:name (prefix "" for an un-namespaced
// function) taking len(params) arguments of the given types. Defining the
// same name again replaces the earlier definition, which is how a phase
// overrides a function it inherits through Clone.
func (r *Registry) Define(prefix, name string, params []Type, fn Func) {
	r.funcs[funcKey(prefix, name)] = funcDef{params: append([]Type(nil), params...), fn: fn}
}

// Const registers a constant, visible as a variable unless the Resolver
// defines the same name.
func (r *Registry) Const(name string, v any) { r.consts[name] = normalize(v) }

// IsConst reports whether name is a constant of the registry: an
// identifier that reads it needs no variable.
func (r *Registry) IsConst(name string) bool {
	if r == nil {
		return false
	}
	_, ok := r.consts[name]
	return ok
}

// Clone returns an independent copy, to extend a base set of functions for
// a particular phase without changing the base.
func (r *Registry) Clone() *Registry {
	c := NewRegistry()
	for k, v := range r.funcs {
		c.funcs[k] = v
	}
	for k, v := range r.consts {
		c.consts[k] = v
	}
	return c
}

// Has reports whether prefix:name is defined.
func (r *Registry) Has(prefix, name string) bool {
	if r == nil {
		return false
	}
	_, ok := r.funcs[funcKey(prefix, name)]
	return ok
}

// Functions lists the defined functions as "prefix:name" (or "name"),
// sorted, for diagnostics and documentation.
func (r *Registry) Functions() []string {
	var out []string
	for k := range r.funcs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CallDirect invokes prefix:name with args exactly as given, without EL
// coercion: a nil argument reaches the function as a Java null would in a
// direct Java call. Tests and callers outside EL text use it.
func (r *Registry) CallDirect(prefix, name string, args ...any) (any, error) {
	def, ok := r.funcs[funcKey(prefix, name)]
	if !ok {
		return nil, fmt.Errorf("function [%s] not found", funcKey(prefix, name))
	}
	if len(args) != len(def.params) {
		return nil, fmt.Errorf("function [%s] takes %d arguments, %d given", funcKey(prefix, name), len(def.params), len(args))
	}
	norm := make([]any, len(args))
	for i, a := range args {
		norm[i] = normalize(a)
	}
	return def.fn(&Call{Prefix: prefix, Name: name, Args: norm})
}

// Check reports the first call in t to a function the registry does not
// define, or with the wrong number of arguments, as an *Error. Jasper
// resolves functions when it parses, so Oozie rejects such calls even in
// branches that would never run; Eval only fails when a call is reached,
// and Check lets submission-time validation be as strict as Oozie.
func (r *Registry) Check(t *Template) error {
	var err error
	for _, n := range t.Nodes {
		Inspect(n, func(n Node) bool {
			c, ok := n.(*CallExpr)
			if !ok || err != nil {
				return err == nil
			}
			def, defined := r.funcs[c.key]
			switch {
			case !defined:
				err = newError(t.text, c.Offset+1, fmt.Sprintf("function [%s] not found", c.key), nil)
			case len(def.params) != len(c.Args):
				err = newError(t.text, c.Offset+1,
					fmt.Sprintf("function [%s] takes %d arguments, %d given", c.key, len(def.params), len(c.Args)), nil)
			}
			return err == nil
		})
	}
	return err
}
