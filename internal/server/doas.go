package server

import (
	"net/http"
)

// refuseDoAs answers a request that asks to act for another user (the
// doAs parameter of Oozie's proxy users, `oozie ... -doas USER`) with
// E1400. gozie has no proxy users yet: acting as the authenticated user
// instead, as it did, ran the command for someone the caller did not
// name without a word. A doAs naming the authenticated user itself
// changes nothing and passes.
func refuseDoAs(r *http.Request, user string) *apiError {
	as := r.URL.Query().Get("doAs")
	if as == "" || as == user {
		return nil
	}
	who := "[" + user + "]"
	if user == "" {
		who = "the anonymous user"
	}
	return errorf(http.StatusUnauthorized, "E1400",
		"doAs (proxyuser) failure, gozie has no proxy users yet: the request asks to act as [%s] but is authenticated as %s; send it as [%s] instead (USER=%s for SIMPLE authentication, its own credentials for BASIC or TOKEN)",
		as, who, as, as)
}
