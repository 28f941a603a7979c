package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeWritesOutsideRepo: the README's shell walkthroughs run from the
// repository root, so every file they write by redirection (or copy to)
// must be outside the checkout (an absolute path such as /tmp/...), or a
// reader's `git status` fills with stray files such as job.svg. The gozie
// binary built by `go build -o gozie` is the one exception (.gitignore).
func TestReadmeWritesOutsideRepo(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// A redirection of stdout (> or >>, not 2>&1 nor >&2) and its target.
	redirect := regexp.MustCompile(`(?:^|[^0-9&>])>>?\s*([^\s&|;]+)`)
	placeholder := regexp.MustCompile(`<[a-z][a-z ]*>`) // <coordinator id>
	copyTo := regexp.MustCompile(`^\s*cp\s+(?:-\S+\s+)*\S+\s+(\S+)`)
	inBlock, checked := false, 0
	for n, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = strings.TrimPrefix(line, "```") == "sh" && !inBlock
			continue
		}
		if !inBlock {
			continue
		}
		code, _, _ := strings.Cut(line, "#") // comments may show output with ->
		code = placeholder.ReplaceAllString(code, "ID")
		var targets []string
		for _, m := range redirect.FindAllStringSubmatch(code, -1) {
			targets = append(targets, m[1])
		}
		if m := copyTo.FindStringSubmatch(code); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			checked++
			if !strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "$TMPDIR") && !strings.HasPrefix(target, "~") {
				t.Errorf("README.md:%d writes %q inside the repository: %s", n+1, target, strings.TrimSpace(line))
			}
		}
	}
	if checked == 0 {
		t.Error("no redirection or copy found in README.md's sh blocks: the check reads nothing")
	}
}
