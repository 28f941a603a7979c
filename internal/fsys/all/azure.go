//go:build !gozie_noazure

package all

// abfs://, abfss://, wasb://, wasbs://; `go build -tags gozie_noazure`
// leaves them out.
import _ "github.com/gozie/gozie/internal/fsys/azure"
