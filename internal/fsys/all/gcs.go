//go:build !gozie_nogcs

package all

// gs:// (about 30 MB of the binary: Google's client brings gRPC and
// OpenTelemetry); `go build -tags gozie_nogcs` leaves it out.
import _ "github.com/gozie/gozie/internal/fsys/gcs"
