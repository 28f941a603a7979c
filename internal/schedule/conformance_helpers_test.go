package schedule

import (
	"os"
	"path/filepath"
	"testing"
)

// conformanceDir is where the public behaviour vectors live; the
// GOZIE_CONFORMANCE_DIR environment variable overrides it.
func conformanceDir() string {
	if d := os.Getenv("GOZIE_CONFORMANCE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "testdata", "conformance")
}

// readVector reads a vector file; a missing file fails the test, since a
// silently skipped conformance suite proves nothing.
func readVector(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(conformanceDir(), name))
	if err != nil {
		t.Fatalf("conformance vectors: %v", err)
	}
	return b
}
