package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gozie/gozie/internal/launch"
)

func TestRunLaunch(t *testing.T) {
	tests := []struct {
		name     string
		spec     launch.LaunchSpec
		exitCode int
		output   map[string]string
		errText  bool
	}{
		{name: "success", spec: launch.LaunchSpec{Exec: "sh", Args: []string{"-c", "true"}}},
		{name: "exit code", spec: launch.LaunchSpec{Exec: "sh", Args: []string{"-c", "exit 3"}}, exitCode: 3},
		{name: "capture", spec: launch.LaunchSpec{Exec: "sh", Args: []string{"-c", "echo k=v"}, Capture: true},
			output: map[string]string{"k": "v"}},
		{name: "not found", spec: launch.LaunchSpec{Exec: "no-such-program-gozie"}, exitCode: -1, errText: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			data, _ := json.Marshal(tt.spec)
			if err := os.WriteFile(filepath.Join(dir, launch.SpecFile), data, 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			if code := runLaunch([]string{dir}, &out, &errb); code != 0 {
				t.Fatalf("runLaunch = %d, stderr %s", code, errb.String())
			}
			var st launch.LaunchStatus
			b, err := os.ReadFile(filepath.Join(dir, launch.StatusFile))
			if err == nil {
				err = json.Unmarshal(b, &st)
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.ExitCode != tt.exitCode || (st.Error != "") != tt.errText || len(st.Output) != len(tt.output) {
				t.Errorf("status = %+v", st)
			}
			for k, v := range tt.output {
				if st.Output[k] != v {
					t.Errorf("output[%s] = %q, want %q", k, st.Output[k], v)
				}
			}
			// A second launch in the same directory does not run again.
			if code := runLaunch([]string{dir}, &out, &errb); code != 3 {
				t.Errorf("second runLaunch = %d, want 3", code)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := runLaunch(nil, &out, &errb); code != 2 {
		t.Errorf("runLaunch without args = %d", code)
	}
	if code := runLaunch([]string{t.TempDir()}, &out, &errb); code != 1 {
		t.Errorf("runLaunch without spec = %d", code)
	}
}
