package server

import (
	"log/slog"
	"net/http"
)

// rawPolicy is the Content-Security-Policy of everything but the
// console's pages: JSON, job logs, definitions, graphs, action output.
// They are data, often written by a job's user; should a browser ever
// render one as a document, the sandbox gives it an origin of its own and
// no script, forms or plugins, and it may load nothing.
const rawPolicy = "sandbox; default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// guard is the first handler of every request: the headers every response
// carries, then the Host check, before authentication and anything else.
// The console replaces rawPolicy with the policy its pages need.
func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		// As Oozie does: no page of the server inside another site's frame.
		hd.Set("X-Frame-Options", "DENY")
		// A type is what it says: a log is never sniffed into HTML, a
		// JSON answer never into a script.
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Content-Security-Policy", rawPolicy)
		if !s.hosts.allowed(r.Context(), r.Host) {
			s.metrics.requests.Add(1)
			s.metrics.errors.Add(1)
			if s.opts.Log != nil {
				s.opts.Log.LogAttrs(r.Context(), slog.LevelWarn, "request refused: Host is not a name of this server",
					slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("host", r.Host),
					slog.String("remote", r.RemoteAddr))
			}
			writeError(w, errHostNotAllowed(r.Host))
			return
		}
		h.ServeHTTP(w, r)
	})
}
