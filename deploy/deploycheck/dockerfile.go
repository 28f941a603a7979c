// Package deploycheck checks the deployment files of deploy/ offline, so
// that none of them is untested text: the Dockerfile's rules (hadolint is
// not packaged for Debian; this checks the rules that matter here), its
// build context, and, in its tests, the systemd unit (systemd-analyze),
// the Kubernetes manifests (strict decoding, probes, ports, security
// context) and the example configuration files (known keys only).
package deploycheck

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Instruction is one Dockerfile instruction, continuation lines joined.
type Instruction struct {
	Line int    // line of its first line, from 1
	Cmd  string // upper-cased: FROM, RUN, ...
	Args string // the rest, trimmed
}

// ParseDockerfile splits src into instructions: comments and blank lines
// dropped, lines ending in a backslash joined with the next (the default
// escape character; comment lines inside a continuation are skipped, as
// Docker does).
func ParseDockerfile(src string) []Instruction {
	var out []Instruction
	var cur strings.Builder
	start := 0
	for i, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if cur.Len() == 0 {
			start = i + 1
		}
		if body, ok := strings.CutSuffix(trimmed, `\`); ok {
			cur.WriteString(body)
			cur.WriteString(" ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		out = append(out, Instruction{Line: start, Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		cmd, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		out = append(out, Instruction{Line: start, Cmd: strings.ToUpper(cmd), Args: strings.TrimSpace(args)})
	}
	return out
}

// CheckDockerfile returns the rules src breaks, one message each, with
// its line; none for a good Dockerfile. The rules:
//   - every base image is pinned: a version tag (not latest, with a digit)
//     or a digest; an earlier stage or scratch is fine, a variable is not;
//   - no ADD of a URL (a download nobody verifies; use a pinned stage);
//   - a `go build` runs with CGO_ENABLED=0 (a static binary);
//   - the final stage runs as a USER that is not root;
//   - it has a HEALTHCHECK in exec form that asks `gozie health` (the
//     image has no curl);
//   - it EXPOSEs 11000 and declares a VOLUME (the data directory).
func CheckDockerfile(src string) []string {
	var problems []string
	bad := func(in Instruction, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: %s %s", in.Line, in.Cmd, fmt.Sprintf(format, args...)))
	}
	stages := map[string]bool{}
	var last []Instruction // the final stage's instructions
	for _, in := range ParseDockerfile(src) {
		switch in.Cmd {
		case "FROM":
			last = nil
			if msg := checkFrom(in.Args, stages); msg != "" {
				bad(in, "%s", msg)
			}
		case "ADD":
			for _, f := range strings.Fields(in.Args) {
				if strings.Contains(f, "://") || strings.HasPrefix(f, "git@") {
					bad(in, "downloads %s: fetch it in a pinned build stage and COPY it, so its content is checked", f)
				}
			}
		case "RUN":
			if strings.Contains(in.Args, "go build") && !strings.Contains(in.Args, "CGO_ENABLED=0") {
				bad(in, "runs go build without CGO_ENABLED=0: the binary must be static")
			}
		}
		last = append(last, in)
	}
	return append(problems, checkFinalStage(last)...)
}

// checkFrom checks the arguments of a FROM, recording its stage name.
func checkFrom(args string, stages map[string]bool) string {
	f := strings.Fields(args)
	for len(f) > 0 && strings.HasPrefix(f[0], "--") {
		f = f[1:] // --platform=...
	}
	if len(f) == 0 {
		return "names no image"
	}
	image := f[0]
	if len(f) == 3 && strings.EqualFold(f[1], "AS") {
		defer func() { stages[strings.ToLower(f[2])] = true }()
	}
	switch {
	case stages[strings.ToLower(image)], image == "scratch":
		return ""
	case strings.Contains(image, "$"):
		return fmt.Sprintf("image %s comes from a variable: pin it in the file", image)
	case strings.Contains(image, "@sha256:"):
		return ""
	}
	// The tag follows the last colon after the last slash (a registry may
	// carry a port: registry:5000/gozie).
	name := image[strings.LastIndex(image, "/")+1:]
	_, tag, ok := strings.Cut(name, ":")
	switch {
	case !ok:
		return fmt.Sprintf("image %s has no tag (it means latest): pin a version", image)
	case tag == "latest" || !strings.ContainsAny(tag, "0123456789"):
		return fmt.Sprintf("image %s is not pinned to a version (tag %q)", image, tag)
	}
	return ""
}

// checkFinalStage checks what the image runs with: user, health check,
// port, volume.
func checkFinalStage(stage []Instruction) []string {
	var problems []string
	var user, health *Instruction
	exposed, volume := false, false
	for i := range stage {
		in := &stage[i]
		switch in.Cmd {
		case "USER":
			user = in
		case "HEALTHCHECK":
			health = in
		case "EXPOSE":
			for _, p := range strings.Fields(in.Args) {
				exposed = exposed || strings.TrimSuffix(p, "/tcp") == "11000"
			}
		case "VOLUME":
			volume = true
		}
	}
	switch {
	case user == nil:
		problems = append(problems, "final stage: no USER: the server would run as root")
	case isRoot(user.Args):
		problems = append(problems, fmt.Sprintf("line %d: USER %s is root", user.Line, user.Args))
	}
	if msg := checkHealth(health); msg != "" {
		problems = append(problems, msg)
	}
	if !exposed {
		problems = append(problems, "final stage: no EXPOSE 11000")
	}
	if !volume {
		problems = append(problems, "final stage: no VOLUME for the data directory")
	}
	return problems
}

func isRoot(user string) bool {
	name, _, _ := strings.Cut(strings.TrimSpace(user), ":")
	return name == "root" || name == "0" || name == ""
}

// checkHealth wants HEALTHCHECK [options] CMD ["gozie", "health", ...]
// (or /path/to/gozie).
func checkHealth(in *Instruction) string {
	if in == nil {
		return "final stage: no HEALTHCHECK"
	}
	i := strings.Index(in.Args, "CMD ")
	if i < 0 {
		return fmt.Sprintf("line %d: HEALTHCHECK has no CMD (NONE turns checks off)", in.Line)
	}
	var argv []string
	if err := json.Unmarshal([]byte(strings.TrimSpace(in.Args[i+4:])), &argv); err != nil {
		return fmt.Sprintf("line %d: HEALTHCHECK CMD is not in exec form [\"gozie\", \"health\"]: %v", in.Line, err)
	}
	if len(argv) < 2 || path.Base(argv[0]) != "gozie" || argv[1] != "health" {
		return fmt.Sprintf("line %d: HEALTHCHECK runs %q, want gozie health (the image has no curl)", in.Line, argv)
	}
	return ""
}

// Ignore is a parsed .dockerignore: which paths of the build context the
// builder leaves out.
type Ignore struct {
	rules []ignoreRule
}

type ignoreRule struct {
	re     *regexp.Regexp
	negate bool
}

// ParseIgnore reads a .dockerignore: one pattern a line, # comments, ! to
// take an earlier exclusion back, Go's filepath.Match syntax plus ** for
// any number of directories; the last matching line decides.
func ParseIgnore(src string) (*Ignore, error) {
	ig := &Ignore{}
	for _, line := range strings.Split(src, "\n") {
		p := strings.TrimSpace(line)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		negate := false
		if rest, ok := strings.CutPrefix(p, "!"); ok {
			negate, p = true, strings.TrimSpace(rest)
		}
		p = strings.TrimPrefix(path.Clean("/"+p), "/")
		re, err := regexp.Compile("^" + globRegexp(p) + "$")
		if err != nil {
			return nil, fmt.Errorf("pattern %q: %v", line, err)
		}
		ig.rules = append(ig.rules, ignoreRule{re, negate})
	}
	return ig, nil
}

// globRegexp translates a pattern: ** any run of path elements, * and ?
// within one element, [...] as is.
func globRegexp(p string) string {
	var sb strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case strings.HasPrefix(p[i:], "**/"):
			sb.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(p[i:], "**"):
			sb.WriteString(".*")
			i++
		case c == '*':
			sb.WriteString("[^/]*")
		case c == '?':
			sb.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(p[i:], ']')
			if j < 0 {
				sb.WriteString(`\[`)
				continue
			}
			sb.WriteString(p[i : i+j+1])
			i += j
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return sb.String()
}

// Excluded reports whether the context path rel (slash-separated,
// relative to the context's root) is left out. A pattern matching a
// directory matches everything below it.
func (ig *Ignore) Excluded(rel string) bool {
	rel = strings.TrimPrefix(path.Clean("/"+rel), "/")
	excluded := false
	for _, r := range ig.rules {
		if r.matches(rel) {
			excluded = !r.negate
		}
	}
	return excluded
}

func (r ignoreRule) matches(rel string) bool {
	for p := rel; ; {
		if r.re.MatchString(p) {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}
