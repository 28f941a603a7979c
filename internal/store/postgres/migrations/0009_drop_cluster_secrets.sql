-- The cookie signing secret was kept here in clear so that every server
-- sharing the database signed with it; anyone able to read the database
-- could therefore sign a cookie for an admin. Servers now derive the key
-- from a secret that never enters the database (gozie.authentication.secret,
-- .secret.file or the data directory's auth-secret), so the old secret is
-- deleted with its table: nothing can sign with it any more, and cookies
-- issued before the upgrade are refused once.
DROP TABLE IF EXISTS cluster_secrets;
