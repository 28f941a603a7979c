package deploycheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = "../.."

// good is a Dockerfile keeping every rule; the cases below break one each.
const good = `FROM golang:1.26.8-bookworm AS build
RUN CGO_ENABLED=0 go build -o /out/gozie ./cmd/gozie
FROM debian:12.11-slim
COPY --from=build /out/gozie /usr/local/bin/gozie
VOLUME ["/var/lib/gozie"]
EXPOSE 11000
USER 11000:11000
HEALTHCHECK --interval=30s \
  CMD ["gozie", "health"]
ENTRYPOINT ["gozie"]
`

func TestCheckDockerfileRules(t *testing.T) {
	for _, c := range []struct {
		name, from, to, want string // replace from by to in good; want in a problem
		from2, to2           string // and from2 by to2
	}{
		{"good", "", "", "", "", ""},
		{"untagged base", "FROM debian:12.11-slim", "FROM debian", "has no tag", "", ""},
		{"latest", "FROM debian:12.11-slim", "FROM debian:latest", "not pinned", "", ""},
		{"named tag", "golang:1.26.8-bookworm AS", "golang:bookworm AS", "not pinned", "", ""},
		{"digest pins", "FROM debian:12.11-slim", "FROM debian@sha256:0123456789abcdef", "", "", ""},
		{"registry port is no tag", "FROM debian:12.11-slim", "FROM registry:5000/debian", "has no tag", "", ""},
		{"variable base", "FROM debian:12.11-slim", "FROM ${BASE}", "from a variable", "", ""},
		{"stage reference", "FROM debian:12.11-slim", "FROM build", "", "", ""},
		{"scratch", "FROM debian:12.11-slim", "FROM scratch", "", "", ""},
		{"ADD of a URL", "COPY --from=build", "ADD https://example.com/gozie /usr/local/bin/gozie\nCOPY --from=build", "downloads https://example.com/gozie", "", ""},
		{"ADD of a file is allowed", "COPY --from=build", "ADD gozie.tar /opt/\nCOPY --from=build", "", "", ""},
		{"cgo", "RUN CGO_ENABLED=0 go build", "RUN go build", "CGO_ENABLED=0", "", ""},
		{"no user", "USER 11000:11000\n", "", "no USER", "", ""},
		{"root by name", "USER 11000:11000", "USER root", "is root", "", ""},
		{"root by uid", "USER 11000:11000", "USER 0:0", "is root", "", ""},
		{"user of the build stage only", "USER 11000:11000\n", "", "no USER", "AS build\n", "AS build\nUSER 11000\n"},
		{"no health check", "HEALTHCHECK --interval=30s \\\n  CMD [\"gozie\", \"health\"]\n", "", "no HEALTHCHECK", "", ""},
		{"health check off", `CMD ["gozie", "health"]`, "NONE", "has no CMD", "", ""},
		{"curl", `CMD ["gozie", "health"]`, `CMD ["curl", "-f", "http://localhost:11000/health/live"]`, "want gozie health", "", ""},
		{"shell form", `CMD ["gozie", "health"]`, `CMD gozie health`, "exec form", "", ""},
		{"absolute path", `CMD ["gozie", "health"]`, `CMD ["/usr/local/bin/gozie", "health", "-ready"]`, "", "", ""},
		{"no port", "EXPOSE 11000\n", "EXPOSE 8080\n", "EXPOSE 11000", "", ""},
		{"no volume", "VOLUME [\"/var/lib/gozie\"]\n", "", "no VOLUME", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := good
			if c.from != "" {
				if !strings.Contains(src, c.from) {
					t.Fatalf("%q is not in the good Dockerfile", c.from)
				}
				src = strings.Replace(src, c.from, c.to, 1)
			}
			if c.from2 != "" {
				src = strings.Replace(src, c.from2, c.to2, 1)
			}
			problems := CheckDockerfile(src)
			if c.want == "" {
				if len(problems) > 0 {
					t.Errorf("problems in a good Dockerfile: %q", problems)
				}
				return
			}
			if len(problems) != 1 || !strings.Contains(problems[0], c.want) {
				t.Errorf("problems %q, want one containing %q", problems, c.want)
			}
		})
	}
}

// TestDockerfile: deploy/docker/Dockerfile keeps the rules, runs the
// binary its build stage makes, and runs as the user the Kubernetes
// manifests expect.
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "deploy/docker/Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range CheckDockerfile(string(data)) {
		t.Errorf("deploy/docker/Dockerfile: %s", p)
	}
	var user string
	for _, in := range ParseDockerfile(string(data)) {
		if in.Cmd == "USER" {
			user = in.Args
		}
	}
	if uid, _, _ := strings.Cut(user, ":"); uid != dockerUID {
		t.Errorf("Dockerfile USER %q, want uid %s (the manifests' runAsUser)", user, dockerUID)
	}
}

// dockerUID is the image's user, which the Kubernetes manifests run as.
const dockerUID = "11000"

// TestDockerContext: the build context Dockerfile.dockerignore leaves
// holds every file the build compiles or embeds (found with go list),
// and no test files or .git.
func TestDockerContext(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "deploy/docker/Dockerfile.dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	ig, err := ParseIgnore(string(data))
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", `{{if .Module}}{{if .Module.Main}}{{$d := .Dir}}{{range .GoFiles}}{{$d}}/{{.}}
{{end}}{{range .EmbedFiles}}{{$d}}/{{.}}
{{end}}{{end}}{{end}}`, "./cmd/gozie")
	cmd.Dir = abs
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	needed := []string{"go.mod", "go.sum"}
	for _, f := range strings.Fields(string(out)) {
		rel, err := filepath.Rel(abs, f)
		if err != nil {
			t.Fatal(err)
		}
		needed = append(needed, filepath.ToSlash(rel))
	}
	if len(needed) < 100 {
		t.Fatalf("go list found only %d files of cmd/gozie", len(needed))
	}
	for _, f := range needed {
		if ig.Excluded(f) {
			t.Errorf("the build needs %s, which Dockerfile.dockerignore leaves out", f)
		}
	}
	for _, f := range []string{".git/config", "internal/cli/cli_test.go", "internal/xmltree/testdata/x.xml", "bench/perf.sh", "docs/server.md"} {
		if !ig.Excluded(f) {
			t.Errorf("Dockerfile.dockerignore sends %s to the builder", f)
		}
	}
}

func TestIgnorePatterns(t *testing.T) {
	ig, err := ParseIgnore("# comment\n*\n!go.mod\n!internal/\n**/*_test.go\n!internal/keep_test.go\nbuild?/\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"README.md", true},
		{"go.mod", false},
		{"internal/cli/cli.go", false},
		{"internal/cli/cli_test.go", true},
		{"internal/keep_test.go", false},
		{"cmd/gozie/main.go", true},
		{"build1/x", true},
	} {
		if got := ig.Excluded(c.path); got != c.want {
			t.Errorf("Excluded(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}
