package launch

import (
	"fmt"
	"slices"
	"testing"
)

// TestResolveEnv follows a supervisor's environments: kept under their
// id when sent, given to requests naming them, refused when unknown (the
// client then sends the whole), and never more than maxEnvs of them.
func TestResolveEnv(t *testing.T) {
	s := &supervisor{}
	envA := []string{"PATH=/usr/bin", "A=1"}
	steps := []struct {
		name    string
		req     supRequest
		ok      bool
		wantEnv []string
	}{
		{"unknown id", supRequest{EnvRef: envID(envA)}, false, nil},
		{"sent whole", supRequest{Env: envA, EnvID: envID(envA)}, true, envA},
		{"named", supRequest{EnvRef: envID(envA)}, true, envA},
		{"no id: used, not kept", supRequest{Env: []string{"B=2"}}, true, []string{"B=2"}},
		{"another id still unknown", supRequest{EnvRef: envID([]string{"B=2"})}, false, nil},
	}
	for _, st := range steps {
		req := st.req
		if ok := s.resolveEnv(&req); ok != st.ok || (ok && !slices.Equal(req.Env, st.wantEnv)) {
			t.Fatalf("%s: resolveEnv = %v, env %q; want %v, %q", st.name, ok, req.Env, st.ok, st.wantEnv)
		}
	}
	for i := range 3 * maxEnvs {
		env := []string{fmt.Sprintf("N=%d", i)}
		req := supRequest{Env: env, EnvID: envID(env)}
		s.resolveEnv(&req)
		if len(s.envs) > maxEnvs {
			t.Fatalf("%d environments kept, at most %d", len(s.envs), maxEnvs)
		}
	}
	if envID(envA) == envID([]string{"PATH=/usr/bin", "A=", "1"}) || envID(nil) == envID([]string{""}) {
		t.Fatal("envID confuses environments that differ")
	}
}
