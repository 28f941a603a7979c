package engine

import (
	"context"
	"testing"

	"github.com/gozie/gozie/internal/store"
)

// TestCredentialsHandedAtStart (issue 30): the credentials an action's
// cred= names reach its configuration when it starts, with the job's
// properties expanded in them; one that cannot be obtained fails the
// action with E0510 through its error transition.
func TestCredentialsHandedAtStart(t *testing.T) {
	h := newHarness(t)
	flow := func(creds string) string {
		return `<workflow-app xmlns="uri:oozie:workflow:1.0" name="creds"><credentials>` + creds + `</credentials>
<start to="a"/><action name="a" cred="meta"><test xmlns="uri:gozie:test:1.0"/><ok to="end"/><error to="fail"/></action>
<kill name="fail"><message>failed</message></kill><end name="end"/></workflow-app>`
	}
	good := h.writeApp("good", flow(`<credential name="meta" type="hcat">
<property><name>hcat.metastore.uri</name><value>thrift://${ms}:9083</value></property>
<property><name>hcat.metastore.principal</name><value>hive/_HOST@GOZIE.TEST</value></property></credential>`), nil)
	id := h.run(props(good, "ms", "metastore1"))
	if j := h.wait(id); j.Status != store.JobSucceeded {
		t.Fatalf("job %s: %s", j.Status, h.describe(id))
	}
	h.exec.mu.Lock()
	c := h.exec.contexts["a"].Conf
	h.exec.mu.Unlock()
	for k, want := range map[string]string{"hive.metastore.uris": "thrift://metastore1:9083", "hive.metastore.kerberos.principal": "hive/_HOST@GOZIE.TEST", "hive.metastore.sasl.enabled": "true"} {
		if got, _ := c.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}

	bad := h.writeApp("bad", flow(`<credential name="meta" type="hcat"><property><name>hcat.metastore.uri</name><value>thrift://ms:9083</value></property></credential>`), nil)
	id = h.run(props(bad))
	if j := h.wait(id); j.Status != store.JobKilled {
		t.Fatalf("job %s, want KILLED: %s", j.Status, h.describe(id))
	}
	var a *store.Action
	h.store.View(context.Background(), func(tx store.Tx) (err error) {
		a, err = tx.Action(context.Background(), id+"@a")
		return err
	})
	if a == nil || a.ErrorCode != "E0510" || a.Status != store.ActionError && a.Status != store.ActionFailed {
		t.Errorf("action %+v, want ERROR with E0510", a)
	}
}
