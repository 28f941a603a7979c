package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/gozie/gozie/internal/workflow"
)

// TestUnrunnableActions: validate warns about each action node whose type
// this build does not run, naming the node, the type and E0723, and is
// silent about the types it runs.
func TestUnrunnableActions(t *testing.T) {
	runs := runnableActionTypes()
	for _, want := range []string{"fs", "shell", "sub-workflow"} {
		if !slices.Contains(runs, want) {
			t.Errorf("runnable types %v lack %s", runs, want)
		}
	}
	node := func(name, typ string) *workflow.Node {
		return &workflow.Node{Name: name, Kind: workflow.ActionNode, Action: &workflow.Action{Type: typ}}
	}
	tests := []struct {
		name  string
		nodes []*workflow.Node
		want  []string // substrings, one per expected warning
	}{
		{"all runnable", []*workflow.Node{node("a", "shell"), node("b", "fs"), node("c", "sub-workflow"), node("d", "custom"),
			{Name: "end", Kind: workflow.EndNode}}, nil},
		{"one unknown", []*workflow.Node{node("a", "shell"), node("x", "teleport")},
			[]string{"node [x] type [teleport]", "E0723", "it runs: "}},
		{"two unknown", []*workflow.Node{node("x", "teleport"), node("y", "levitate")},
			[]string{"node [x] type [teleport]", "node [y] type [levitate]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unrunnableActions(&workflow.App{Nodes: tt.nodes}, map[string]string{"custom": "/bin/true"})
			if tt.want == nil {
				if len(got) != 0 {
					t.Fatalf("warnings %q, want none", got)
				}
				return
			}
			all := strings.Join(got, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("warnings %q lack %q", got, w)
				}
			}
		})
	}
}
