//! The embedded store: SQLite (rusqlite, bundled) in WAL mode in the data dir.
//!
//! Why SQLite: it is durable and crash-safe (a process killed mid-write leaves the last
//! committed state), and several processes may use one file at once, so operator commands
//! (`scanid client create`) work while `scanid serve` runs. WAL lets readers proceed while one
//! writer commits; `synchronous=NORMAL` in WAL mode survives process crashes and keeps the
//! database consistent across power loss (the last commits before a power cut may be lost).
//!
//! Reads use pooled connections and run inline: WAL readers never wait for a lock. Writes go
//! to this process's one writer thread, which commits them in groups (`writer.rs`): a write is
//! answered once its group's commit is known. SQLite admits one writer at a time anyway; other
//! processes (operator commands) wait for the write lock through the busy timeout. No lock is
//! held across an await. Checkpoints run on a thread of their own, never on the writer
//! (`checkpoint.rs`), which syncs the database file itself (`files.rs`). Expired records are
//! purged by [`EmbeddedStore::sweep`] (`scanid serve` runs it every `--purge-interval-secs`,
//! five minutes by default).
//!
//! The rooms: `schema.rs` (the one table, and the events' in their own file, `events.rs`), `writer.rs` (group commit), `checkpoint.rs` (the
//! checkpointer and the WAL's bound), `files.rs` (the database file kept open once per process,
//! the syncs outside SQLite), and here the [`Backend`] over them. Each says why it is ours and
//! not SQLite's or a crate's, with what was measured.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod photos;
pub use photos::DirPhotos;

mod checkpoint;
mod events;
mod files;
mod schema;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension};

use scanid_core::clock::Timestamp;
use scanid_core::store::{Backend, Cond, Key, Kind, Record, StoreError, Write};

use checkpoint::{checkpointer_loop, Wal, CHECKPOINT_WAIT};
use events::EventsFile;
use files::Files;
use schema::SCHEMA;
use writer::{job, writer_loop, Job};

/// The SQLite adapter.
#[derive(Clone)]
pub struct EmbeddedStore {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    /// Readers: WAL lets them run alongside the writer.
    pool: Mutex<Vec<Connection>>,
    /// The queue of the writer thread, which owns this process's one writing connection
    /// ([`writer_loop`]); the thread ends when the store is dropped.
    writes: mpsc::Sender<Job>,
    /// The audit events, in a file of their own (`events.rs`).
    events: Arc<EventsFile>,
}

/// Expired records one purge write deletes.
const SWEEP_BATCH: usize = 500;

/// Expired records one scan of the sweep collects (about 50 bytes each).
const SCAN_BATCH: usize = 5_000;

/// How the store is tuned; [`EmbeddedStore::open`] takes the defaults.
#[derive(Debug, Clone, Copy)]
pub struct Tuning {
    /// The WAL size (in pages) past which the writer holds writes back for one short
    /// checkpoint so that the WAL starts over, because writes have not paused long enough for
    /// the checkpointer's to copy every frame. 16,384 pages of 4 KiB: the WAL file stays near
    /// 70 MB, and writes wait for one short checkpoint every few thousand code exchanges
    /// instead of a long one on the writer every two hundred.
    pub wal_bound_pages: u32,
    /// The writer's page cache, in KiB: the pages its writes change are found there instead
    /// of being read again from the file (the OS's page cache keeps them too). 2 MiB: at
    /// 8 MiB it was the largest single part of `scanid serve`'s peak memory (the writer
    /// thread's malloc arena at 8.7 MB under whole QR logins), and the code exchange, the path
    /// that writes most, runs as fast with 2 (docs/benchmarks/2026-11-29-memory.md).
    pub writer_cache_kib: u32,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            wal_bound_pages: 16_384,
            writer_cache_kib: 2_048,
        }
    }
}

/// Microseconds since `since`, for the logs of checkpoints and syncs.
fn micros(since: std::time::Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// Creates `path` if absent, readable by its owner only; SQLite gives its -wal and -shm the
/// same mode.
fn create_private(path: &Path) -> Result<(), StoreError> {
    let mut opts = std::fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    opts.open(path)
        .map(drop)
        .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display()).into()))
}

impl std::fmt::Debug for EmbeddedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedStore")
            .field("path", &self.inner.path)
            .finish()
    }
}

pub(crate) fn unavailable(e: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(Box::new(e))
}

impl EmbeddedStore {
    /// Opens (creating if needed) `scanid.db` in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        Self::open_tuned(data_dir, Tuning::default())
    }

    /// [`EmbeddedStore::open`] with the given tuning.
    pub fn open_tuned(data_dir: &Path, tuning: Tuning) -> Result<Self, StoreError> {
        scanid_core::keys::local::create_private_dir(data_dir).map_err(|e| {
            StoreError::Unavailable(format!("data dir {}: {e}", data_dir.display()).into())
        })?;
        let path = data_dir.join("scanid.db");
        create_private(&path)?;
        let events = Arc::new(EventsFile::open(data_dir)?);
        let conn = Self::reader(&path)?;
        conn.execute_batch(SCHEMA).map_err(unavailable)?;
        let mut writer = Self::connect(&path)?;
        writer
            .execute_batch(&format!(
                "PRAGMA wal_autocheckpoint=0; PRAGMA cache_size=-{};",
                tuning.writer_cache_kib
            ))
            .map_err(unavailable)?;
        let checkpointer = Self::connect(&path)?;
        checkpointer
            .execute_batch("PRAGMA wal_autocheckpoint=0; PRAGMA cache_size=-256;")
            .map_err(unavailable)?;
        // Its checkpoints are PASSIVE and wait for nobody in this process; this bounds what
        // it waits for another process (an operator command's lock).
        checkpointer
            .busy_timeout(CHECKPOINT_WAIT)
            .map_err(unavailable)?;
        let (nudge, nudges) = mpsc::sync_channel(1);
        let wal = Arc::new(Wal {
            hard_bound: i64::from(tuning.wal_bound_pages).saturating_mul(2),
            ..Wal::default()
        });
        // The writer's own checkpoint is a last resort, at twice the bound (`checkpoint::restart_wal`);
        // the hook replaces SQLite's autocheckpoint, which gave up whenever the checkpointer
        // held the WAL.
        let hooked = Arc::clone(&wal);
        writer
            .wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, frames| {
                hooked.frames.store(i64::from(frames), Ordering::Relaxed);
                Ok(())
            }))
            .map_err(unavailable)?;
        let shared = Arc::clone(&wal);
        let bound = tuning.wal_bound_pages;
        let files = Files::open(&path)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display()).into()))?;
        std::thread::Builder::new()
            .name("scanid-sqlite-checkpointer".into())
            .spawn(move || checkpointer_loop(checkpointer, nudges, &shared, bound, &files))
            .map_err(|e| StoreError::Unavailable(format!("the checkpointer thread: {e}").into()))?;
        let (writes, queue) = mpsc::channel();
        std::thread::Builder::new()
            .name("scanid-sqlite-writer".into())
            .spawn(move || writer_loop(writer, queue, nudge, &wal))
            .map_err(|e| StoreError::Unavailable(format!("the writer thread: {e}").into()))?;
        Ok(Self {
            inner: Arc::new(Inner {
                path,
                pool: Mutex::new(vec![conn]),
                writes,
                events,
            }),
        })
    }

    /// The events file.
    pub(crate) fn events_file(&self) -> &Arc<EventsFile> {
        &self.inner.events
    }

    /// A pooled reader: a small page cache, because under writes SQLite drops a reader's cache
    /// at each new read transaction anyway, and the pool may hold 64 of them (at SQLite's
    /// default of 2 MB each, bursts grew the soak's RSS from 19 to 41 MB).
    fn reader(path: &Path) -> Result<Connection, StoreError> {
        let conn = Self::connect(path)?;
        conn.execute_batch("PRAGMA cache_size=-256;")
            .map_err(unavailable)?;
        Ok(conn)
    }

    fn connect(path: &Path) -> Result<Connection, StoreError> {
        let conn = Connection::open(path).map_err(unavailable)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(unavailable)?;
        conn.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;")
            .map_err(unavailable)?;
        Ok(conn)
    }

    /// Runs a read with a pooled connection, inline: in WAL mode readers never wait for a lock
    /// and a point read takes microseconds, less than a handoff to the blocking pool would
    /// (profiling showed those handoffs costing more than the reads themselves).
    async fn with_conn<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        F: FnOnce(&mut Connection) -> Result<T, StoreError>,
    {
        let pooled = self.inner.pool.lock().ok().and_then(|mut p| p.pop());
        let mut conn = match pooled {
            Some(c) => c,
            None => Self::reader(&self.inner.path)?,
        };
        let out = f(&mut conn);
        if let Ok(mut p) = self.inner.pool.lock() {
            if p.len() < 64 {
                p.push(conn);
            }
        }
        out
    }

    /// Runs a write on the writer thread, in a savepoint of its next group commit (see
    /// `writer.rs`): the answer arrives once that commit is known. A write that
    /// returns `Err` is rolled back alone.
    async fn with_writer<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    {
        let (job, answer) = job(f);
        if self.inner.writes.send(job).is_err() {
            return Err(StoreError::Unavailable(
                "the writer thread has stopped".into(),
            ));
        }
        answer
            .await
            .map_err(|_| StoreError::Unavailable("the write was not committed".into()))?
    }

    /// Deletes expired records (reads already ignore them); returns how many. A reader scans
    /// the table in key order for expired keys (on the blocking pool: the scan reads the whole
    /// table), `SCAN_BATCH` (5,000) at a time, and the writer deletes them in batches of
    /// `SWEEP_BATCH` (500), each its own write, so other writes go on between them (one delete of
    /// everything held the writer for over a second in the soak). Each delete checks the
    /// expiry again: a record written anew under an expired key since the scan is kept.
    pub async fn sweep(&self, now: Timestamp) -> Result<usize, StoreError> {
        let now = now.secs();
        let mut total = 0;
        let mut after = String::new();
        loop {
            let inner = Arc::clone(&self.inner);
            let from = after.clone();
            let expired = tokio::task::spawn_blocking(move || {
                let conn = Self::reader(&inner.path)?;
                let mut s = conn
                    .prepare(
                        "SELECT pk FROM records WHERE pk > ?1
                         AND expires_at IS NOT NULL AND expires_at <= ?2 ORDER BY pk LIMIT ?3",
                    )
                    .map_err(unavailable)?;
                let limit = i64::try_from(SCAN_BATCH).unwrap_or(i64::MAX);
                let rows = s
                    .query_map(params![from, now, limit], |r| r.get::<_, String>(0))
                    .map_err(unavailable)?;
                rows.collect::<Result<Vec<_>, _>>().map_err(unavailable)
            })
            .await
            .map_err(|e| StoreError::Unavailable(format!("the sweep's scan: {e}").into()))??;
            for batch in expired.chunks(SWEEP_BATCH) {
                let batch = batch.to_vec();
                total += self
                    .with_writer(move |c| {
                        let mut s = c
                            .prepare_cached(
                                "DELETE FROM records WHERE pk = ?1
                                 AND expires_at IS NOT NULL AND expires_at <= ?2",
                            )
                            .map_err(unavailable)?;
                        let mut n = 0;
                        for pk in &batch {
                            n += s.execute(params![pk, now]).map_err(unavailable)?;
                        }
                        Ok(n)
                    })
                    .await?;
            }
            match expired.last() {
                Some(last) if expired.len() == SCAN_BATCH => after.clone_from(last),
                _ => return Ok(total),
            }
        }
    }
}

fn kind_of(pk: &str) -> &str {
    pk.split_once('#').map_or(pk, |(k, _)| k)
}

fn get_live(c: &Connection, key: &Key, now: i64) -> Result<Option<Record>, StoreError> {
    c.prepare_cached(
        "SELECT body, ver, expires_at FROM records
         WHERE pk = ?1 AND (expires_at IS NULL OR expires_at > ?2)",
    )
    .and_then(|mut s| {
        s.query_row(params![key.pk(), now], |r| row(key.clone(), r, 0))
            .optional()
    })
    .map_err(unavailable)
}

/// A record from the columns `body, ver, expires_at` starting at column `first`.
fn row(key: Key, r: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Record> {
    Ok(Record {
        key,
        body: r.get(first)?,
        version: u64::try_from(r.get::<_, i64>(first + 1)?).unwrap_or(0),
        expires_at: r.get(first + 2)?,
    })
}

fn ver_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// One put; `Ok(false)` when the condition failed.
fn put_one(c: &Connection, r: &Record, cond: Cond, now: i64) -> Result<bool, StoreError> {
    let pk = r.key.pk();
    let kind = kind_of(&pk).to_owned();
    let ver = ver_i64(r.version);
    // Cached statements: parsing SQL showed up at 5% of a code exchange's profile.
    let n = match cond {
        Cond::Any => c
            .prepare_cached(
                "INSERT INTO records (pk, kind, body, ver, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (pk) DO UPDATE SET kind = excluded.kind, body = excluded.body,
                   ver = excluded.ver, expires_at = excluded.expires_at",
            )
            .and_then(|mut s| s.execute(params![pk, kind, r.body, ver, r.expires_at])),
        Cond::Absent => c
            .prepare_cached(
                "INSERT INTO records (pk, kind, body, ver, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (pk) DO UPDATE SET kind = excluded.kind, body = excluded.body,
                   ver = excluded.ver, expires_at = excluded.expires_at
                 WHERE records.expires_at IS NOT NULL AND records.expires_at <= ?6",
            )
            .and_then(|mut s| s.execute(params![pk, kind, r.body, ver, r.expires_at, now])),
        Cond::Version(v) => c
            .prepare_cached(
                "UPDATE records SET body = ?2, ver = ?3, expires_at = ?4
                 WHERE pk = ?1 AND ver = ?5 AND (expires_at IS NULL OR expires_at > ?6)",
            )
            .and_then(|mut s| s.execute(params![pk, r.body, ver, r.expires_at, ver_i64(v), now])),
    }
    .map_err(unavailable)?;
    Ok(n == 1)
}

fn check_one(c: &Connection, key: &Key, cond: Cond, now: i64) -> Result<bool, StoreError> {
    let live = get_live(c, key, now)?;
    Ok(match cond {
        Cond::Any => true,
        Cond::Absent => live.is_none(),
        Cond::Version(v) => live.is_some_and(|r| r.version == v),
    })
}

fn delete_one(c: &Connection, key: &Key, cond: Cond, now: i64) -> Result<bool, StoreError> {
    let pk = key.pk();
    match cond {
        Cond::Any => {
            c.prepare_cached("DELETE FROM records WHERE pk = ?1")
                .and_then(|mut s| s.execute([pk]))
                .map_err(unavailable)?;
            Ok(true)
        }
        Cond::Absent => check_one(c, key, cond, now),
        Cond::Version(v) => {
            let n = c
                .prepare_cached(
                    "DELETE FROM records WHERE pk = ?1 AND ver = ?2
                     AND (expires_at IS NULL OR expires_at > ?3)",
                )
                .and_then(|mut s| s.execute(params![pk, ver_i64(v), now]))
                .map_err(unavailable)?;
            Ok(n == 1)
        }
    }
}

fn fail_unless(ok: bool) -> Result<(), StoreError> {
    if ok {
        Ok(())
    } else {
        Err(StoreError::ConditionFailed)
    }
}

#[async_trait]
impl Backend for EmbeddedStore {
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        let key = key.clone();
        self.with_conn(move |c| get_live(c, &key, now.secs())).await
    }

    async fn put(&self, record: Record, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        self.with_writer(move |c| fail_unless(put_one(c, &record, cond, now.secs())?))
            .await
    }

    async fn delete(&self, key: &Key, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        let key = key.clone();
        self.with_writer(move |c| fail_unless(delete_one(c, &key, cond, now.secs())?))
            .await
    }

    async fn consume(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        let key = key.clone();
        self.with_writer(move |c| {
            c.prepare_cached(
                "DELETE FROM records WHERE pk = ?1 AND (expires_at IS NULL OR expires_at > ?2)
                 RETURNING body, ver, expires_at",
            )
            .and_then(|mut s| {
                s.query_row(params![key.pk(), now.secs()], |r| row(key.clone(), r, 0))
                    .optional()
            })
            .map_err(unavailable)
        })
        .await
    }

    async fn transact(&self, writes: Vec<Write>, now: Timestamp) -> Result<(), StoreError> {
        // All or nothing: a failed condition rolls the job's savepoint back.
        self.with_writer(move |c| {
            let now = now.secs();
            for w in &writes {
                let ok = match w {
                    Write::Put(r, cond) => put_one(c, r, *cond, now)?,
                    Write::Delete(k, cond) => delete_one(c, k, *cond, now)?,
                    Write::Check(k, cond) => check_one(c, k, *cond, now)?,
                };
                fail_unless(ok)?;
            }
            Ok(())
        })
        .await
    }

    async fn incr(&self, key: &Key, expires_at: i64, now: Timestamp) -> Result<u64, StoreError> {
        let pk = key.pk();
        let kind = key.kind.as_str();
        self.with_writer(move |c| {
            let body: String = c
                .prepare_cached(
                    "INSERT INTO records (pk, kind, body, ver, expires_at) VALUES (?1, ?2, '1', 1, ?3)
                     ON CONFLICT (pk) DO UPDATE SET
                       body = CASE WHEN records.expires_at IS NOT NULL AND records.expires_at <= ?4
                                   THEN '1' ELSE CAST(CAST(records.body AS INTEGER) + 1 AS TEXT) END,
                       expires_at = CASE WHEN records.expires_at IS NOT NULL AND records.expires_at <= ?4
                                   THEN excluded.expires_at ELSE records.expires_at END,
                       ver = records.ver + 1
                     RETURNING body",
                )
                .and_then(|mut s| {
                    s.query_row(params![pk, kind, expires_at, now.secs()], |r| r.get(0))
                })
                .map_err(unavailable)?;
            body.parse().map_err(|_| StoreError::Corrupt(format!("counter {pk}: {body:?}").into()))
        })
        .await
    }

    async fn purge_expired(&self, now: Timestamp) -> Result<usize, StoreError> {
        Ok(self.sweep(now).await? + self.sweep_events(now).await?)
    }

    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError> {
        self.with_conn(move |c| {
            let mut s = c
                .prepare_cached(
                    "SELECT pk, body, ver, expires_at FROM records
                     WHERE pk >= ?1 AND pk < ?2 AND (expires_at IS NULL OR expires_at > ?3)
                     ORDER BY pk",
                )
                .map_err(unavailable)?;
            // Every key of a kind starts with "kind#": a range of the primary key ('$' follows
            // '#'), so no index on `kind` has to be kept up on every write.
            let (from, to) = (format!("{}#", kind.as_str()), format!("{}$", kind.as_str()));
            let rows = s
                .query_map(params![from, to, now.secs()], |r| {
                    let pk: String = r.get(0)?;
                    let id = pk
                        .split_once('#')
                        .map_or(String::new(), |(_, id)| id.to_owned());
                    row(Key::new(kind, id), r, 1)
                })
                .map_err(unavailable)?;
            rows.collect::<Result<Vec<_>, _>>().map_err(unavailable)
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    scanid_core::adapter_suite!(async {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedStore::open(dir.path()).unwrap();
        (store, dir)
    });

    #[tokio::test]
    async fn sweep_goes_on_past_one_scan_and_keeps_live_records() {
        let dir = tempfile::tempdir().unwrap();
        let s = EmbeddedStore::open(dir.path()).unwrap();
        let n = SCAN_BATCH + 300;
        // Expired and live records interleaved in key order.
        for i in 0..n {
            for (prefix, exp) in [("a", 10), ("b", 100)] {
                let key = Key::new(Kind::Test, format!("{i:06}{prefix}"));
                let r = Record::new(key, &1, Some(exp)).unwrap();
                s.put(r, Cond::Any, Timestamp::from_secs(0)).await.unwrap();
            }
        }
        let now = Timestamp::from_secs(50);
        assert_eq!(s.sweep(now).await.unwrap(), n);
        assert_eq!(s.list(Kind::Test, now).await.unwrap().len(), n);
        let c = Connection::open(dir.path().join("scanid.db")).unwrap();
        let left: i64 = c
            .query_row("SELECT count(*) FROM records", [], |r| r.get(0))
            .unwrap();
        assert_eq!(left, i64::try_from(n).unwrap());
    }

    #[tokio::test]
    async fn survives_reopen_and_sees_writes_from_another_handle() {
        let dir = tempfile::tempdir().unwrap();
        let now = Timestamp::from_secs(1000);
        let a = EmbeddedStore::open(dir.path()).unwrap();
        let b = EmbeddedStore::open(dir.path()).unwrap();
        let r = Record::new(
            Key::new(Kind::Test, "x"),
            &serde_json::json!({"n": 1}),
            None,
        )
        .unwrap();
        a.put(r.clone(), Cond::Absent, now).await.unwrap();
        assert_eq!(b.get(&r.key, now).await.unwrap(), Some(r.clone()));
        drop(a);
        drop(b);
        let c = EmbeddedStore::open(dir.path()).unwrap();
        assert_eq!(c.get(&r.key, now).await.unwrap(), Some(r));
    }

    #[tokio::test]
    async fn sweep_removes_only_expired() {
        let dir = tempfile::tempdir().unwrap();
        let s = EmbeddedStore::open(dir.path()).unwrap();
        let now = Timestamp::from_secs(1000);
        for (id, exp) in [("a", Some(999)), ("b", Some(1001)), ("c", None)] {
            let r = Record::new(Key::new(Kind::Test, id), &1, exp).unwrap();
            s.put(r, Cond::Any, Timestamp::from_secs(0)).await.unwrap();
        }
        assert_eq!(s.sweep(now).await.unwrap(), 1);
        assert_eq!(s.list(Kind::Test, now).await.unwrap().len(), 2);
    }

    #[tokio::test]
    async fn sweep_goes_on_past_one_batch() {
        let dir = tempfile::tempdir().unwrap();
        let s = EmbeddedStore::open(dir.path()).unwrap();
        let n = 2 * SWEEP_BATCH + 7;
        for i in 0..n {
            let r = Record::new(Key::new(Kind::Test, format!("e{i}")), &1, Some(10)).unwrap();
            s.put(r, Cond::Any, Timestamp::from_secs(0)).await.unwrap();
        }
        let live = Record::new(Key::new(Kind::Test, "live"), &1, Some(100)).unwrap();
        s.put(live, Cond::Any, Timestamp::from_secs(0))
            .await
            .unwrap();
        let now = Timestamp::from_secs(50);
        assert_eq!(s.sweep(now).await.unwrap(), n);
        assert_eq!(s.list(Kind::Test, now).await.unwrap().len(), 1);
        assert_eq!(s.sweep(now).await.unwrap(), 0);
    }
}
