//! The audit events ([`EventStore`]) in a file of their own, `events.db` beside `scanid.db`
//! (`schema.rs`'s `EVENTS_SCHEMA`), with a writing connection of its own: appended one batch
//! per transaction, read by pooled readers with the index the query's filters pick (identity,
//! client, else time), expired ones deleted by the sweep. Both run on tokio's blocking pool.
//!
//! **Why a file of its own.** `scanid serve` appends a second's worth of events at a time
//! (issue 37). In `scanid.db` that batch went through the one writer thread (`writer.rs`) and
//! held it while 5,000 rows and their four indexes were written: on 2026-11-28, ES256 on this
//! 2-core machine, the refresh grant's p99 went from 3.9 ms to 56 ms and the code exchange's
//! from 4.4 ms to 56 ms (7,922 and 7,141 req/s against 8,572 and 8,288 without events). SQLite
//! admits one writer per file, so a second connection to the same file would only have waited
//! for the same lock. With a file of its own, the login's writes never queue behind an event:
//! the same benchmark (with other builds on the machine, load average 6, both binaries in the
//! same hour) gave the refresh a p99 of 8.6 ms (16.3 ms for the binary without events) and the
//! code exchange 20.2 ms (19.8 ms), each at 3.9x oidc-provider. The cost is a second WAL: a
//! backup copies both files.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rusqlite::{params, params_from_iter, types::Value, Connection, TransactionBehavior};

use scanid_core::clock::Timestamp;
use scanid_core::store::events::{EventQuery, EventStore, StoredEvent};
use scanid_core::store::StoreError;

use crate::schema::EVENTS_SCHEMA;
use crate::{unavailable, EmbeddedStore};

/// Expired events one delete removes; other appends go on between two.
const SWEEP_BATCH: usize = 500;

/// The events file: its writing connection (used only by the append and the sweep, never on a
/// request's path) and a pool of readers.
pub(crate) struct EventsFile {
    path: PathBuf,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
}

impl EventsFile {
    /// Opens (creating if needed, mode 0600) `events.db` in `data_dir`.
    pub(crate) fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let path = data_dir.join("events.db");
        crate::create_private(&path)?;
        let writer = EmbeddedStore::connect(&path)?;
        writer.execute_batch(EVENTS_SCHEMA).map_err(unavailable)?;
        Ok(Self {
            path,
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// Runs `f` with the writing connection on the blocking pool.
    async fn write<T, F>(self: &Arc<Self>, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let file = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let mut c = file
                .writer
                .lock()
                .map_err(|_| StoreError::Unavailable("the events writer panicked".into()))?;
            f(&mut c)
        })
        .await
        .map_err(|e| StoreError::Unavailable(format!("the events writer: {e}").into()))?
    }

    /// Runs `f` with a pooled reader on the blocking pool (an events query may scan).
    async fn read<T, F>(self: &Arc<Self>, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let file = Arc::clone(self);
        tokio::task::spawn_blocking(move || {
            let pooled = file.readers.lock().ok().and_then(|mut p| p.pop());
            let conn = match pooled {
                Some(c) => c,
                None => EmbeddedStore::reader(&file.path)?,
            };
            let out = f(&conn);
            if let Ok(mut p) = file.readers.lock() {
                if p.len() < 4 {
                    p.push(conn);
                }
            }
            out
        })
        .await
        .map_err(|e| StoreError::Unavailable(format!("an events read: {e}").into()))?
    }
}

fn corrupt(e: serde_json::Error) -> StoreError {
    StoreError::Corrupt(Box::new(e))
}

#[async_trait]
impl EventStore for EmbeddedStore {
    async fn append(&self, events: Vec<StoredEvent>) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let rows = events
            .into_iter()
            .map(|e| serde_json::to_string(&e).map(|body| (e, body)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(corrupt)?;
        self.events_file()
            .write(move |c| {
                let tx = c
                    .transaction_with_behavior(TransactionBehavior::Immediate)
                    .map_err(unavailable)?;
                {
                    let mut s = tx
                        .prepare_cached(
                            "INSERT OR IGNORE INTO events
                             (id, time, type, admin, client_id, sub, expires_at, body)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                        )
                        .map_err(unavailable)?;
                    for (e, body) in &rows {
                        s.execute(params![
                            e.id,
                            e.time,
                            e.kind,
                            e.is_admin(),
                            e.client_id,
                            e.sub,
                            e.expires_at,
                            body
                        ])
                        .map_err(unavailable)?;
                    }
                }
                tx.commit().map_err(unavailable)
            })
            .await
    }

    async fn events(&self, q: &EventQuery, now: Timestamp) -> Result<Vec<StoredEvent>, StoreError> {
        let mut sql = String::from("SELECT body FROM events WHERE admin = ? AND expires_at > ?");
        let mut args: Vec<Value> = vec![Value::from(q.admin), Value::from(now.secs())];
        if let Some(sub) = &q.sub {
            sql.push_str(" AND sub = ?");
            args.push(Value::from(sub.clone()));
        }
        if let Some(client) = &q.client_id {
            sql.push_str(" AND client_id = ?");
            args.push(Value::from(client.clone()));
        }
        if let Some(from) = q.from {
            sql.push_str(" AND time >= ?");
            args.push(Value::from(from));
        }
        if let Some(to) = q.to {
            sql.push_str(" AND time <= ?");
            args.push(Value::from(to));
        }
        if !q.types.is_empty() {
            sql.push_str(" AND type IN (");
            sql.push_str(&vec!["?"; q.types.len()].join(", "));
            sql.push(')');
            args.extend(q.types.iter().cloned().map(Value::from));
        }
        sql.push_str(" ORDER BY time DESC, id DESC LIMIT ? OFFSET ?");
        args.push(Value::from(i64::try_from(q.max).unwrap_or(i64::MAX)));
        args.push(Value::from(i64::try_from(q.first).unwrap_or(i64::MAX)));
        let bodies = self
            .events_file()
            .read(move |c| {
                let mut s = c.prepare(&sql).map_err(unavailable)?;
                let rows = s
                    .query_map(params_from_iter(args), |r| r.get::<_, String>(0))
                    .map_err(unavailable)?;
                rows.collect::<Result<Vec<_>, _>>().map_err(unavailable)
            })
            .await?;
        bodies
            .iter()
            .map(|b| serde_json::from_str(b).map_err(corrupt))
            .collect()
    }
}

impl EmbeddedStore {
    /// Deletes expired events, [`SWEEP_BATCH`] per transaction; returns how many.
    pub(crate) async fn sweep_events(&self, now: Timestamp) -> Result<usize, StoreError> {
        let now = now.secs();
        let limit = i64::try_from(SWEEP_BATCH).unwrap_or(i64::MAX);
        let mut total = 0;
        loop {
            let n = self
                .events_file()
                .write(move |c| {
                    c.prepare_cached(
                        "DELETE FROM events WHERE id IN
                         (SELECT id FROM events WHERE expires_at <= ?1 LIMIT ?2)",
                    )
                    .and_then(|mut s| s.execute(params![now, limit]))
                    .map_err(unavailable)
                })
                .await?;
            total += n;
            if n < SWEEP_BATCH {
                return Ok(total);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    scanid_core::event_suite!(async {
        let dir = tempfile::tempdir().unwrap();
        (crate::EmbeddedStore::open(dir.path()).unwrap(), dir)
    });

    use rusqlite::Connection;
    use scanid_core::store::events::{EventStore, StoredEvent};

    /// Events are written to `events.db`, never to `scanid.db` (whose one writer serves the
    /// login), and an events table of the day they lived in `scanid.db` is dropped at open.
    #[tokio::test]
    async fn events_live_in_their_own_file() {
        let dir = tempfile::tempdir().unwrap();
        let old = Connection::open(dir.path().join("scanid.db")).unwrap();
        old.execute_batch("CREATE TABLE events (id TEXT PRIMARY KEY NOT NULL);")
            .unwrap();
        drop(old);
        let store = crate::EmbeddedStore::open(dir.path()).unwrap();
        let e = StoredEvent {
            id: "0000000001000-a".into(),
            time: 1000,
            name: "login.approved".into(),
            kind: "LOGIN".into(),
            outcome: "success".into(),
            expires_at: 10,
            ..StoredEvent::default()
        };
        store.append(vec![e]).await.unwrap();
        let main = Connection::open(dir.path().join("scanid.db")).unwrap();
        let tables: i64 = main
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'events'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tables, 0);
        let events = Connection::open(dir.path().join("events.db")).unwrap();
        let n: i64 = events
            .query_row("SELECT count(*) FROM events", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 1);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join("events.db"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
