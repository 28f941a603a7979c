-- Created with the servers table (0006) for secrets every server sharing a
-- database agreed on, in clear; SQLite serves one server and never filled
-- it, and the cookie signing key is now derived from a secret outside the
-- database (see the PostgreSQL migration 0009). The table goes so that no
-- later code stores a secret there again.
DROP TABLE IF EXISTS cluster_secrets;
