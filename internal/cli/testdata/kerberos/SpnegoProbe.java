// SpnegoProbe authenticates to a gozie server the way hadoop-auth's Java
// KerberosAuthenticator does, on the JDK's own GSS-API: a JAAS login
// from the user's ticket cache, an OPTIONS request that must be answered
// with a Negotiate challenge, a SPNEGO context requesting mutual
// authentication whose first token goes in "Authorization: Negotiate",
// and the server's answer token fed back to the context, which must then
// be established (the JDK checks the AP-REP). The hadoop.auth cookie the
// server sets then carries the real request.
//
// Usage: java SpnegoProbe CCACHE SERVICE_PRINCIPAL URL METHOD [BODY]
// It prints "mutual=<true|false> status=<code>" and the body.
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.GSSName;
import org.ietf.jgss.Oid;

public class SpnegoProbe {
    public static void main(String[] args) throws Exception {
        final String ccache = args[0], principal = args[1], url = args[2], method = args[3];
        final String body = args.length > 4 ? args[4] : null;
        Configuration.setConfiguration(new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                Map<String, String> o = new HashMap<>();
                o.put("useTicketCache", "true");
                o.put("ticketCache", ccache);
                o.put("doNotPrompt", "true");
                return new AppConfigurationEntry[] {new AppConfigurationEntry(
                    "com.sun.security.auth.module.Krb5LoginModule",
                    AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, o)};
            }
        });
        // The challenge is asked for outside the login's Subject: within
        // it the JDK's HttpURLConnection would answer the challenge by
        // itself (hadoop-auth then only reads the cookie).
        HttpURLConnection probe = (HttpURLConnection) new URL(url).openConnection();
        probe.setRequestMethod("OPTIONS");
        int first = probe.getResponseCode();
        String challenge = probe.getHeaderField("WWW-Authenticate");
        if (first != 401 || challenge == null || !challenge.trim().startsWith("Negotiate")) {
            throw new IllegalStateException("no Negotiate challenge: " + first + " " + challenge);
        }
        LoginContext login = new LoginContext("gozie-client");
        login.login();
        Subject.doAs(login.getSubject(), (PrivilegedExceptionAction<Void>) () -> {
            run(principal, url, method, body);
            return null;
        });
    }

    static void run(String principal, String url, String method, String body) throws Exception {
        GSSManager gss = GSSManager.getInstance();
        Oid spnego = new Oid("1.3.6.1.5.5.2");
        Oid krb5Principal = new Oid("1.2.840.113554.1.2.2.1");
        GSSContext ctx = gss.createContext(gss.createName(principal, krb5Principal), spnego, null, GSSContext.DEFAULT_LIFETIME);
        ctx.requestMutualAuth(true);
        ctx.requestCredDeleg(true);
        byte[] token = ctx.initSecContext(new byte[0], 0, 0);
        HttpURLConnection auth = (HttpURLConnection) new URL(url).openConnection();
        auth.setRequestMethod("OPTIONS");
        auth.setRequestProperty("Authorization", "Negotiate " + Base64.getEncoder().encodeToString(token));
        int code = auth.getResponseCode();
        if (code != 200) {
            throw new IllegalStateException("SPNEGO refused: " + code);
        }
        String answer = auth.getHeaderField("WWW-Authenticate");
        if (answer == null || !answer.startsWith("Negotiate ")) {
            throw new IllegalStateException("no Negotiate token in the answer: " + answer);
        }
        byte[] reply = Base64.getDecoder().decode(answer.substring("Negotiate ".length()).trim());
        ctx.initSecContext(reply, 0, reply.length);
        if (!ctx.isEstablished()) {
            throw new IllegalStateException("the SPNEGO context is not established after the server's token");
        }
        String cookie = null;
        List<String> set = auth.getHeaderFields().get("Set-Cookie");
        for (String c : set == null ? List.<String>of() : set) {
            if (c.startsWith("hadoop.auth=")) {
                cookie = c.split(";", 2)[0];
            }
        }
        if (cookie == null) {
            throw new IllegalStateException("no hadoop.auth cookie");
        }
        HttpURLConnection req = (HttpURLConnection) new URL(url).openConnection();
        req.setRequestMethod(method);
        req.setRequestProperty("Cookie", cookie);
        if (body != null) {
            req.setDoOutput(true);
            req.setRequestProperty("Content-Type", "application/xml;charset=UTF-8");
            try (OutputStream out = req.getOutputStream()) {
                out.write(body.getBytes(StandardCharsets.UTF_8));
            }
        }
        int status = req.getResponseCode();
        InputStream in = status < 400 ? req.getInputStream() : req.getErrorStream();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        if (in != null) {
            in.transferTo(buf);
        }
        System.out.println("mutual=" + ctx.getMutualAuthState() + " status=" + status);
        System.out.println(buf.toString(StandardCharsets.UTF_8));
    }
}
