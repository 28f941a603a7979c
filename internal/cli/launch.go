package cli

import (
	"fmt"
	"io"
	"slices"

	"github.com/gozie/gozie/internal/launch"
)

// runLaunch is `gozie launch DIR`, the launcher the server starts for
// process actions (shell): it runs the program described in DIR and records
// how it ended there. It lives in the binary so that a process action needs
// nothing but gozie itself; the work is done by launch.RunLauncher.
func runLaunch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && slices.Contains([]string{"-h", "-help", "--help"}, args[0]) {
		fmt.Fprintln(stdout, "Usage: gozie launch DIR")
		fmt.Fprintln(stdout, "Runs the program described by DIR/launch.json in DIR; the engine starts it for process actions (shell), not people.")
		return exitOK
	}
	return launch.RunLauncher(args, stdout, stderr)
}
