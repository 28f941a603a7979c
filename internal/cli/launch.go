package cli

import (
	"io"

	"github.com/gozie/gozie/internal/action"
)

// runLaunch is `gozie launch DIR`, the launcher the server starts for
// process actions (shell): it runs the program described in DIR and records
// how it ended there. It lives in the binary so that a process action needs
// nothing but gozie itself; the work is done by action.RunLauncher.
func runLaunch(args []string, stdout, stderr io.Writer) int {
	return action.RunLauncher(args, stdout, stderr)
}
