-- The seed's tenant tree: sqlite3 examples/adapters/shop.db < examples/adapters/tree.sql
CREATE TABLE tenants (id TEXT PRIMARY KEY, parent TEXT);
INSERT INTO tenants VALUES ('eu', 'acme'), ('us', 'acme'), ('de', 'eu'), ('fr', 'eu'), ('berlin', 'de'), ('ny', 'us');
