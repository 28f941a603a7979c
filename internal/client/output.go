package client

import (
	"context"
	"net/http"
	"net/url"
)

// Output streams of a workflow action, as ActionOutput names them.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// ActionOutput returns what a workflow action's program wrote to stream
// (StreamStdout or StreamStderr) in its current attempt: gozie's
// /oozie/console/action/<id>/<stream>, where the action's consoleUrl
// points. An action that ran no process has none (empty). A server
// without that resource (Apache Oozie keeps the output in Hadoop's logs)
// answers a CallError with Status 404.
func (c *Client) ActionOutput(ctx context.Context, id, stream string) ([]byte, error) {
	resp, err := c.send(ctx, &request{method: http.MethodGet, path: "/console/action/" + url.PathEscape(id) + "/" + stream})
	if err != nil {
		return nil, err
	}
	return resp.body, nil
}
