-- Test durations as a CI job records them (e.g. from `vitest --reporter=json`): one row per test file.
-- Build the database with: sqlite3 test_durations.db < examples/adapters/durations.sql
CREATE TABLE durations (file TEXT PRIMARY KEY, ms INTEGER NOT NULL);
INSERT INTO durations VALUES ('src/cart.test.ts', 5400);
INSERT INTO durations VALUES ('src/price.test.ts', 120);
INSERT INTO durations VALUES ('src/checkout.test.ts', 2300);
