package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunStreamingCounters runs a workflow whose local streaming
// map-reduce action is followed by decisions on its counters: the counters
// the job recorded must reach hadoop:counters, under the specification's
// constants (Hadoop 1 group names) and the Hadoop 2 group names, and be
// shown as the action's stats.
func TestRunStreamingCounters(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app")
	in := filepath.Join(dir, "in")
	out := filepath.Join(dir, "out")
	for _, d := range []string{app, in} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(in, "a.txt"), []byte("x y x\nz\n"), 0o644)
	os.WriteFile(filepath.Join(in, "b.txt"), []byte("y x\n"), 0o644)
	wf := `<workflow-app xmlns="uri:oozie:workflow:1.0" name="mr-counters">
  <start to="mr"/>
  <action name="mr">
    <map-reduce>
      <resource-manager>local</resource-manager><name-node>file:///</name-node>
      <streaming><mapper>tr ' ' '\n'</mapper><reducer>uniq -c</reducer></streaming>
      <configuration>
        <property><name>mapred.input.dir</name><value>` + in + `</value></property>
        <property><name>mapred.output.dir</name><value>` + out + `</value></property>
        <property><name>mapred.reduce.tasks</name><value>2</value></property>
      </configuration>
    </map-reduce>
    <ok to="records"/><error to="fail"/>
  </action>
  <decision name="records">
    <switch>
      <case to="hadoop2">${hadoop:counters('mr')[RECORDS][MAP_IN] eq 3 and hadoop:counters('mr')[RECORDS][MAP_OUT] eq 6 and hadoop:counters('mr')[RECORDS][REDUCE_IN] eq 6 and hadoop:counters('mr')[RECORDS][GROUPS] eq 3 and hadoop:counters('mr')[RECORDS][REDUCE_OUT] eq 3}</case>
      <default to="wrong"/>
    </switch>
  </decision>
  <decision name="hadoop2">
    <switch>
      <case to="end">${hadoop:counters('mr')['org.apache.hadoop.mapreduce.TaskCounter']['REDUCE_OUTPUT_RECORDS'] eq 3 and hadoop:counters('mr')['org.apache.hadoop.mapred.JobInProgress$Counter']['TOTAL_LAUNCHED_REDUCES'] eq 2 and hadoop:counters('mr')['FileSystemCounters']['FILE_BYTES_READ'] gt 0}</case>
      <default to="wrong"/>
    </switch>
  </decision>
  <kill name="wrong"><message>counters: ${hadoop:counters('mr')[RECORDS]}</message></kill>
  <kill name="fail"><message>[${wf:errorCode('mr')}] ${wf:errorMessage('mr')}</message></kill>
  <end name="end"/>
</workflow-app>`
	if err := os.WriteFile(filepath.Join(app, "workflow.xml"), []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := runRun([]string{"-json", "-D", "oozie.wf.application.path=" + app, "-data", filepath.Join(dir, "data")}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var job struct {
		Status  string `json:"status"`
		Actions []struct {
			Name  string `json:"name"`
			Stats string `json:"stats"`
		} `json:"actions"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &job); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if job.Status != "SUCCEEDED" {
		t.Fatalf("status %s\n%s", job.Status, stdout.String())
	}
	found := false
	for _, a := range job.Actions {
		if a.Name == "mr" {
			found = true
			if !strings.Contains(a.Stats, `"MAP_INPUT_RECORDS":3`) {
				t.Errorf("stats of mr: %q", a.Stats)
			}
		}
	}
	if !found {
		t.Errorf("no action mr in %s", stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "_SUCCESS"))
	if err != nil || len(b) != 0 {
		t.Errorf("_SUCCESS: %v", err)
	}
}
