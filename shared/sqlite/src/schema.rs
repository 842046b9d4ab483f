//! The schema: one table of records keyed by `kind#id`, made at open ([`crate::EmbeddedStore::open`]),
//! and, in a file of their own, the audit events ([`EVENTS_SCHEMA`]).
//! A data dir of an earlier version opens as it is: the one change since, its expiry index,
//! is dropped (and an older binary opening the file makes it again).

/// One table, keyed by `kind#id`, and no secondary index: the expiry index of earlier versions
/// (dropped here when a data dir of theirs is opened) was 38% of the pages a code exchange
/// wrote, because a code's expiry changes when it is redeemed. The sweep finds expired records
/// by a scan on a reader instead ([`EmbeddedStore::sweep`]).
pub(crate) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS records (
    pk         TEXT PRIMARY KEY NOT NULL,
    kind       TEXT NOT NULL,
    body       TEXT NOT NULL,
    ver        INTEGER NOT NULL,
    expires_at INTEGER
) WITHOUT ROWID;
DROP INDEX IF EXISTS records_kind;
DROP INDEX IF EXISTS records_expiry;
-- The events moved to a file of their own (events.db, EVENTS_SCHEMA) on the day they
-- were added: their table here would share the one writer with the login's writes.
DROP TABLE IF EXISTS events;
";

/// The audit events (issue 37), in `events.db` beside `scanid.db`, with indexes by time, client
/// and identity. A file of their own, with a writer of its own: a second's worth of events
/// (5,000 rows and their four indexes under the token benchmark) took the one writer of
/// `scanid.db` for 50 ms each second, the p99 of every write of the login behind it
/// (`events.rs` says what was measured).
pub(crate) const EVENTS_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS events (
    id         TEXT PRIMARY KEY NOT NULL,
    time       INTEGER NOT NULL,
    type       TEXT NOT NULL,
    admin      INTEGER NOT NULL,
    client_id  TEXT,
    sub        TEXT,
    expires_at INTEGER NOT NULL,
    body       TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_time ON events (admin, time);
CREATE INDEX IF NOT EXISTS events_client ON events (client_id, time) WHERE client_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_sub ON events (sub, time) WHERE sub IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_expiry ON events (expires_at);
";

#[cfg(test)]
mod tests {
    use rusqlite::Connection;
    use scanid_core::clock::Timestamp;
    use scanid_core::store::{Backend, Cond, Key, Kind};

    use crate::EmbeddedStore;

    /// The schema as main's binary wrote it before issue 27 (schema version 0), copied here as
    /// a fixture, with records written the way that version wrote them.
    const SCHEMA_BEFORE_27: &str = "
        CREATE TABLE IF NOT EXISTS records (
            pk         TEXT PRIMARY KEY NOT NULL,
            kind       TEXT NOT NULL,
            body       TEXT NOT NULL,
            ver        INTEGER NOT NULL,
            expires_at INTEGER
        ) WITHOUT ROWID;
        DROP INDEX IF EXISTS records_kind;
        CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at) WHERE expires_at IS NOT NULL;
        PRAGMA journal_mode=WAL;
        INSERT INTO records VALUES ('code#c1', 'code', '{\"n\":1}', 1, 2000);
        INSERT INTO records VALUES ('refresh#r1', 'refresh', '{\"n\":2}', 3, 2000);
        INSERT INTO records VALUES ('sso#s1', 'sso', '{\"n\":3}', 1, 2000);
        INSERT INTO records VALUES ('code#old', 'code', '{\"n\":4}', 1, 500);
        INSERT INTO records VALUES ('client#a', 'client', '{\"n\":5}', 1, NULL);
    ";

    #[tokio::test]
    async fn a_data_dir_of_the_previous_version_is_used_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let old = Connection::open(dir.path().join("scanid.db")).unwrap();
        old.execute_batch(SCHEMA_BEFORE_27).unwrap();
        drop(old);
        let s = EmbeddedStore::open(dir.path()).unwrap();
        let now = Timestamp::from_secs(1000);
        // A live code is consumed once.
        let code = Key::new(Kind::Code, "c1");
        let got = s.consume(&code, now).await.unwrap().unwrap();
        assert_eq!((got.body.as_str(), got.version), ("{\"n\":1}", 1));
        assert!(s.consume(&code, now).await.unwrap().is_none());
        // A refresh token rotates on its version.
        let rt = s
            .get(&Key::new(Kind::Refresh, "r1"), now)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(rt.version, 3);
        s.put(rt.next(&7).unwrap(), Cond::Version(3), now)
            .await
            .unwrap();
        // A session reads; an expired code does not, and the sweep removes it.
        assert!(s
            .get(&Key::new(Kind::Sso, "s1"), now)
            .await
            .unwrap()
            .is_some());
        assert!(s
            .get(&Key::new(Kind::Code, "old"), now)
            .await
            .unwrap()
            .is_none());
        assert_eq!(s.sweep(now).await.unwrap(), 1);
        assert_eq!(s.list(Kind::Client, now).await.unwrap().len(), 1);
        // The expiry index is gone, the file is sound.
        let c = Connection::open(dir.path().join("scanid.db")).unwrap();
        let indexes: i64 = c
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = 'records_expiry'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(indexes, 0);
        let check: String = c
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
    }
}
