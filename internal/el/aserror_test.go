package el

import (
	"fmt"
	"testing"

	"github.com/gozie/gozie/internal/vocab"
)

// TestAsError: EL errors are vocab.Error like every coded error; AsError
// finds the EL one and nothing else.
func TestAsError(t *testing.T) {
	_, err := (&Evaluator{}).EvalString("${nosuch}")
	if err == nil {
		t.Fatal("no error")
	}
	if e := AsError(fmt.Errorf("wrapped: %w", err)); e == nil || e.Code != CodeEval {
		t.Errorf("AsError(wrapped EL error) = %v", e)
	}
	if e := AsError(vocab.Errorf("E0701", "XML schema error")); e != nil {
		t.Errorf("AsError(workflow error) = %v, want nil", e)
	}
	if e := AsError(&vocab.Error{Kind: vocab.KindTransient, Code: "JA009"}); e != nil {
		t.Errorf("AsError(executor error) = %v, want nil", e)
	}
}
