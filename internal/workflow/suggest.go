package workflow

import (
	"slices"
	"strings"
)

// CustomActionKeyPrefix is the server setting that makes an unknown action
// element runnable: gozie.action.executable.<element> names the program
// (internal/action/custom). E0723 names it, since a workflow written for a
// server with custom action executors meets this refusal first.
const CustomActionKeyPrefix = "gozie.action.executable."

// closestName returns the node name nearest to target when it is near
// enough to be a slip of the keyboard (a letter missing, doubled, swapped,
// another case), "" otherwise: E0708 then says "did you mean", which saves
// a reader from comparing the names by eye. Ties go to the node defined
// first. from, the node whose transition it is, is never suggested: a
// node may not transition to itself (E0706).
func closestName(target string, from *Node, nodes []*Node) string {
	if target == "" || strings.Contains(target, "${") {
		return ""
	}
	want := strings.ToLower(target)
	// A third of the name's letters, at most three, may differ: more
	// would suggest unrelated names, and in names of one or two letters
	// every other short name is one edit away, so only the case may.
	limit := min(3, len([]rune(want))/3)
	best, bestDist := "", limit+1
	for _, n := range nodes {
		if n == from || n.Name == "" || n.Kind == StartNode {
			continue
		}
		if d := editDistance(want, strings.ToLower(n.Name)); d < bestDist {
			best, bestDist = n.Name, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b: the
// number of insertions, deletions, substitutions and swaps of neighbours
// that turn one into the other.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// rows[i%3] holds the distances of s[:i]; three rows keep the swap rule.
	rows := [3][]int{make([]int, len(t)+1), make([]int, len(t)+1), make([]int, len(t)+1)}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur, prev, prev2 := rows[i%3], rows[(i-1)%3], rows[(i+1)%3]
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
	}
	return rows[len(s)%3][len(t)]
}

// acceptedTypes lists the action types a workflow may use under o, sorted:
// the workflow namespace's own and the accepted extension types. E0723
// shows it so that a refused type is compared with what runs here.
func (o Options) acceptedTypes() []string {
	seen := map[string]bool{}
	for t := range builtinActions["uri:oozie:workflow:1.0"] {
		seen[t] = true
	}
	ext := o.ExtensionActions
	if ext == nil {
		ext = DefaultExtensionActions()
	}
	for t, ok := range ext {
		if ok {
			seen[t] = true
		}
	}
	out := make([]string, 0, len(seen))
	for t := range seen {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// unsupportedActionError is E0723 with Oozie's text first, then what this
// server runs and how a custom type is made to run.
func (o Options) unsupportedActionError(n *Node) *Error {
	return newError(CodeUnsupportedAction, "Unsupported action type, node [%s] type [%s]; the action types that run here are [%s]; to run a custom type, set %s%s to its program in the server configuration",
		n.Name, n.Action.Type, strings.Join(o.acceptedTypes(), ", "), CustomActionKeyPrefix, n.Action.Type).At(n.Line, n.Col)
}

// invalidTransitionError is E0708 with Oozie's text, followed by the
// closest node name when there is one.
func (w *walker) invalidTransitionError(n *Node, to string) *Error {
	msg := "Invalid transition, node [%s] transition [%s]"
	args := []any{n.Name, to}
	if near := closestName(to, n, w.app.Nodes); near != "" {
		msg += "; did you mean [%s]?"
		args = append(args, near)
	}
	return newError(CodeInvalidTransition, msg, args...).At(n.Line, n.Col)
}
