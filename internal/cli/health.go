package cli

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// defaultHealthURL is probed without -oozie and $OOZIE_URL: the server
// on this host, where a container's HEALTHCHECK runs.
const defaultHealthURL = "http://localhost:11000/oozie"

// runHealth is `gozie health [-oozie URL] [-ready]`: exit 0 when the
// server is live (or, with -ready, ready), 1 when it is not or does not
// answer, 2 for a wrong command line. It exists for probes where there is
// no curl (a distroless image's HEALTHCHECK).
func runHealth(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("health", "[-oozie URL] [-ready] [-timeout 5s]", stderr)
	oozie := fs.String("oozie", "", "server base URL, e.g. http://localhost:11000/oozie (default $OOZIE_URL, else "+defaultHealthURL+")")
	ready := fs.Bool("ready", false, "ask /health/ready (store, migrations, cluster) instead of /health/live")
	timeout := fs.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	insecure := fs.Bool("insecure", false, "do not verify the server's TLS certificate (a probe of localhost with a certificate for the public name)")
	rest, err := parseInterspersed(fs, args)
	if err != nil {
		return flagStatus(err)
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "Error: health takes no arguments, got %q\n", rest)
		fs.Usage()
		return exitUsage
	}
	base := *oozie
	if base == "" {
		base = os.Getenv("OOZIE_URL")
	}
	if base == "" {
		base = defaultHealthURL
	}
	target, err := healthURL(base, *ready)
	if err != nil {
		fmt.Fprintf(stderr, "Error: -oozie %s: %v\n", base, err)
		return exitUsage
	}
	code, body, err := probeHealth(target, *timeout, *insecure)
	if err != nil {
		fmt.Fprintf(stderr, "Error: %v\n", err)
		return exitFail
	}
	fmt.Fprintln(stdout, body)
	if code != http.StatusOK {
		return exitFail
	}
	return exitOK
}

// healthURL is the health endpoint of the server whose Oozie URL is base
// (http://host:11000/oozie): the endpoints are at the root, outside the
// context path.
func healthURL(base string, ready bool) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("want http://HOST:PORT/oozie or https://...")
	}
	path := "/health/live"
	if ready {
		path = "/health/ready"
	}
	u.Path, u.RawQuery, u.Fragment = path, "", ""
	return u.String(), nil
}

// probeHealth GETs target, straight (no proxy: a probe asks this server,
// not whatever the environment routes to), and returns the status and a
// one-line summary of the answer.
func probeHealth(target string, timeout time.Duration, insecure bool) (int, string, error) {
	tr := &http.Transport{Proxy: nil}
	if insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} // what -insecure asks for
	}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return 0, "", err
	}
	res, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var ans struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
		Failed []string          `json:"failed"`
	}
	if json.Unmarshal(b, &ans) != nil || ans.Status == "" {
		return res.StatusCode, fmt.Sprintf("%s: %s", res.Status, strings.TrimSpace(string(b))), nil
	}
	line := ans.Status
	for _, name := range ans.Failed {
		line += fmt.Sprintf("; %s: %s", name, ans.Checks[name])
	}
	return res.StatusCode, line, nil
}
