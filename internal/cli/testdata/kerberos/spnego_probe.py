"""spnego_probe authenticates to a gozie server with MIT Kerberos's
GSS-API (python-gssapi), as Hue's requests-kerberos / requests-gssapi
clients do with mutual authentication required: a SPNEGO token for
HTTP@<host> in "Authorization: Negotiate", then the server's answer token
fed back to the context, which MIT must accept (it checks the AP-REP).

Usage: python3 spnego_probe.py URL METHOD [BODY]
KRB5CCNAME and KRB5_CONFIG name the ticket cache and krb5.conf.
Prints "mutual=<bool> status=<code>" and the body.
"""
import base64
import sys
import urllib.error
import urllib.parse
import urllib.request

import gssapi


def main():
    url, method = sys.argv[1], sys.argv[2]
    body = sys.argv[3].encode() if len(sys.argv) > 3 else None
    host = urllib.parse.urlparse(url).hostname
    spnego = gssapi.OID.from_int_seq("1.3.6.1.5.5.2")
    ctx = gssapi.SecurityContext(
        name=gssapi.Name("HTTP@" + host, gssapi.NameType.hostbased_service),
        usage="initiate", mech=spnego,
        flags=gssapi.RequirementFlag.mutual_authentication | gssapi.RequirementFlag.out_of_sequence_detection)
    token = ctx.step()
    req = urllib.request.Request(url, data=body, method=method)
    req.add_header("Authorization", "Negotiate " + base64.b64encode(token).decode())
    if body is not None:
        req.add_header("Content-Type", "application/xml;charset=UTF-8")
    try:
        resp = urllib.request.urlopen(req)
        status, headers, text = resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        status, headers, text = e.code, e.headers, e.read()
    answer = headers.get("WWW-Authenticate", "")
    if status < 400:
        if not answer.startswith("Negotiate "):
            raise SystemExit("no Negotiate token in the answer: %r" % answer)
        ctx.step(base64.b64decode(answer[len("Negotiate "):].strip()))
        if not ctx.complete:
            raise SystemExit("the context is not complete after the server's token")
    mutual = bool(ctx.actual_flags & gssapi.RequirementFlag.mutual_authentication) if ctx.complete else False
    print("mutual=%s status=%d" % (mutual, status))
    print(text.decode())


if __name__ == "__main__":
    main()
