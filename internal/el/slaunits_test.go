package el

import "testing"

// TestSLAUnits: the SLA duration constants count minutes, and the job's
// own variables of those names win.
func TestSLAUnits(t *testing.T) {
	rows := []struct {
		vars Resolver
		expr string
		want string
	}{
		{nil, "${10 * MINUTES}", "10"},
		{nil, "${2 * HOURS}", "120"},
		{nil, "${1 * DAYS}", "1440"},
		{MapVars{"n": int64(3)}, "${n * HOURS}", "180"},
		{MapVars{"HOURS": int64(2)}, "${3 * HOURS}", "6"},
	}
	for _, r := range rows {
		ev := &Evaluator{Funcs: NewRegistry(), Vars: SLAUnits(r.vars)}
		got, err := ev.EvalString(r.expr)
		if err != nil || got != r.want {
			t.Errorf("%s = %q, %v; want %s", r.expr, got, err, r.want)
		}
	}
	if _, ok := SLAUnits(nil).Lookup("WEEKS"); ok {
		t.Error("WEEKS resolved")
	}
}
