//! The embedded store: SQLite (rusqlite, bundled) in WAL mode in the data dir.
//!
//! Why SQLite: it is durable and crash-safe (a process killed mid-write leaves the last
//! committed state), and several processes may use one file at once, so operator commands
//! (`scanid client create`) work while `scanid serve` runs. WAL lets readers proceed while one
//! writer commits; `synchronous=NORMAL` in WAL mode survives process crashes and keeps the
//! database consistent across power loss (the last commits before a power cut may be lost).
//!
//! Reads use pooled connections and run inline: WAL readers never wait for a lock. Writes go
//! to this process's one writer thread, which owns the writing connection and commits in
//! groups: it takes every write waiting in its queue, runs each in a savepoint of one
//! transaction (a write whose condition fails rolls back to its savepoint alone), commits once,
//! and only then answers each caller. A success is therefore as durable as before, and a burst
//! of writes costs one commit (its WAL frames and wal-index update) instead of one each.
//! SQLite admits one writer at a time anyway; other processes (operator commands) wait for the
//! write lock through the busy timeout. No lock is held across an await. Expired records are
//! purged by [`EmbeddedStore::sweep`] (`scanid serve` runs it every `--purge-interval-secs`,
//! five minutes by default).
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod photos;
pub use photos::DirPhotos;

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use scanid_core::clock::Timestamp;
use scanid_core::store::{Backend, Cond, Key, Kind, Record, StoreError, Write};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS records (
    pk         TEXT PRIMARY KEY NOT NULL,
    kind       TEXT NOT NULL,
    body       TEXT NOT NULL,
    ver        INTEGER NOT NULL,
    expires_at INTEGER
) WITHOUT ROWID;
DROP INDEX IF EXISTS records_kind;
CREATE INDEX IF NOT EXISTS records_expiry ON records (expires_at) WHERE expires_at IS NOT NULL;
";

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
}

/// A write for the writer thread: runs on its connection inside a savepoint and says whether
/// it succeeded (else its savepoint is rolled back) and how to answer once the group's fate
/// is known. A job dropped unrun answers its caller "unavailable" (its reply channel closes).
type Job = Box<dyn FnOnce(&Connection) -> Ran + Send>;

struct Ran {
    ok: bool,
    answer: Answer,
}

/// Answers a write's caller: `None` when the group committed, else why it did not.
type Answer = Box<dyn FnOnce(Option<&str>) + Send>;

/// The most writes one commit takes.
const GROUP: usize = 128;

/// Expired records one purge write deletes.
const SWEEP_BATCH: i64 = 500;

/// A job running `f`, and where its answer arrives.
fn job<T, F>(f: F) -> (Job, tokio::sync::oneshot::Receiver<Result<T, StoreError>>)
where
    T: Send + 'static,
    F: FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
{
    let (reply, answer) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move |c| {
        let out = f(c);
        Ran {
            ok: out.is_ok(),
            answer: Box::new(move |failed: Option<&str>| {
                let out = match (failed, out) {
                    (Some(why), Ok(_)) => Err(StoreError::Unavailable(why.to_owned().into())),
                    (_, out) => out,
                };
                let _ = reply.send(out);
            }),
        }
    });
    (job, answer)
}

/// The writer thread: waits for a write, takes every other one queued behind it (up to
/// [`GROUP`]) and commits them as one group.
fn writer_loop(mut conn: Connection, queue: mpsc::Receiver<Job>) {
    while let Ok(first) = queue.recv() {
        let mut group = vec![first];
        while group.len() < GROUP {
            match queue.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        commit_group(&mut conn, group);
    }
}

/// Runs `group` in one transaction, each job in its own savepoint, commits, and answers each
/// job once the outcome is known: its own error, or the commit's, or success. If SQLite ends
/// the transaction on its own (an I/O error, a full disk), every job run so far is answered
/// "not committed" and the rest are dropped unrun: nothing is ever written outside the group's
/// transaction, and nothing written is answered as failed.
fn commit_group(conn: &mut Connection, group: Vec<Job>) {
    let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => {
            // Another process held the write lock past the busy timeout: nothing is written,
            // and each caller hears "unavailable".
            tracing::warn!(error = %e, "the writer could not begin a transaction");
            return;
        }
    };
    let mut answers: Vec<Answer> = Vec::with_capacity(group.len());
    let mut lost = None;
    for job in group {
        if tx.is_autocommit() {
            lost = Some("the transaction was rolled back".to_owned());
            break;
        }
        match run_in_savepoint(&tx, job) {
            Ok(Some(a)) => answers.push(a),
            Ok(None) => {}
            Err(why) => {
                lost = Some(why);
                break;
            }
        }
    }
    if lost.is_none() && tx.is_autocommit() {
        lost = Some("the transaction was rolled back".to_owned());
    }
    let failed = match lost {
        // Dropping `tx` rolls back whatever is left of the transaction.
        Some(why) => Some(why),
        None => tx.commit().err().map(|e| format!("commit: {e}")),
    };
    if let Some(why) = &failed {
        tracing::warn!(error = %why, "a group of writes was not committed");
    }
    for answer in answers {
        answer(failed.as_deref());
    }
}

/// Runs `job` in a savepoint of the open transaction `tx`: released when the job succeeded,
/// rolled back when it failed or panicked. `Ok(Some)`: the job's answer, due once the group's
/// fate is known; `Ok(None)`: the job has answered or was not run (its writes rolled back);
/// `Err`: the savepoint could not be ended cleanly, so the group must not commit.
fn run_in_savepoint(tx: &Connection, job: Job) -> Result<Option<Answer>, String> {
    if let Err(e) = tx.execute_batch("SAVEPOINT w") {
        // Nothing of this job ran; the job is dropped and its caller hears "unavailable".
        tracing::warn!(error = %e, "taking a savepoint failed");
        return Ok(None);
    }
    // A panicking job drops its reply channel while unwinding: its caller hears "unavailable".
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(tx))).ok();
    let ok = ran.as_ref().is_some_and(|r| r.ok);
    if ok && tx.execute_batch("RELEASE w").is_ok() {
        return Ok(ran.map(|r| r.answer));
    }
    // Failed, panicked, or could not be released: undo it.
    let release_failed = ok.then_some("releasing a savepoint failed");
    match tx.execute_batch("ROLLBACK TO w; RELEASE w") {
        Ok(()) => {
            // Rolled back: a failed job's answer is its own error.
            if let Some(r) = ran {
                (r.answer)(release_failed);
            }
            Ok(None)
        }
        Err(e) => {
            let why = format!("ending a savepoint: {e}");
            if let Some(r) = ran {
                (r.answer)(Some(&why));
            }
            Err(why)
        }
    }
}

impl std::fmt::Debug for EmbeddedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedStore")
            .field("path", &self.inner.path)
            .finish()
    }
}

fn unavailable(e: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(Box::new(e))
}

impl EmbeddedStore {
    /// Opens (creating if needed) `scanid.db` in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        scanid_core::keys::local::create_private_dir(data_dir).map_err(|e| {
            StoreError::Unavailable(format!("data dir {}: {e}", data_dir.display()).into())
        })?;
        let path = data_dir.join("scanid.db");
        // Create the file readable by the owner only; SQLite gives its -wal and -shm the same mode.
        let mut opts = std::fs::OpenOptions::new();
        opts.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
        opts.open(&path)
            .map_err(|e| StoreError::Unavailable(format!("{}: {e}", path.display()).into()))?;
        let conn = Self::reader(&path)?;
        conn.execute_batch(SCHEMA).map_err(unavailable)?;
        let writer = Self::connect(&path)?;
        let (writes, queue) = mpsc::channel();
        std::thread::Builder::new()
            .name("scanid-sqlite-writer".into())
            .spawn(move || writer_loop(writer, queue))
            .map_err(|e| StoreError::Unavailable(format!("the writer thread: {e}").into()))?;
        Ok(Self {
            inner: Arc::new(Inner {
                path,
                pool: Mutex::new(vec![conn]),
                writes,
            }),
        })
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

    /// Runs a write on the writer thread, in a savepoint of its next group commit (see the
    /// module documentation): the answer arrives once that commit is known. A write that
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

    /// Deletes expired records (reads already ignore them); returns how many. In batches of
    /// `SWEEP_BATCH`, each its own write: other writes go on between them (one delete of
    /// everything held the writer for over a second in the soak).
    pub async fn sweep(&self, now: Timestamp) -> Result<usize, StoreError> {
        let now = now.secs();
        let mut total = 0;
        loop {
            let n = self
                .with_writer(move |c| {
                    c.prepare_cached(
                        "DELETE FROM records WHERE pk IN (SELECT pk FROM records
                         WHERE expires_at IS NOT NULL AND expires_at <= ?1 LIMIT ?2)",
                    )
                    .and_then(|mut s| s.execute(params![now, SWEEP_BATCH]))
                    .map_err(unavailable)
                })
                .await?;
            total += n;
            if i64::try_from(n).is_ok_and(|n| n < SWEEP_BATCH) {
                return Ok(total);
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
        self.sweep(now).await
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

    /// A connection to a fresh database, and a job that writes `id` and then answers `then`.
    fn writer() -> (Connection, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let conn = EmbeddedStore::connect(&dir.path().join("scanid.db")).unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        (conn, dir)
    }

    fn writes(
        id: &'static str,
        then: impl FnOnce(&Connection) -> Result<(), StoreError> + Send + 'static,
    ) -> (Job, tokio::sync::oneshot::Receiver<Result<(), StoreError>>) {
        job(move |c| {
            let r = Record::new(Key::new(Kind::Test, id), &1, None)?;
            fail_unless(put_one(c, &r, Cond::Absent, 0)?)?;
            then(c)
        })
    }

    fn stored(c: &Connection, id: &str) -> bool {
        get_live(c, &Key::new(Kind::Test, id), 0).unwrap().is_some()
    }

    #[test]
    fn a_group_answers_each_write_by_its_own_fate() {
        let (mut conn, _dir) = writer();
        let (a, ra) = writes("a", |_| Ok(()));
        let (b, rb) = writes("b", |_| Err(StoreError::ConditionFailed));
        let (c, rc) = writes("c", |_| panic!("a bug in a write"));
        let (d, rd) = writes("d", |_| Ok(()));
        commit_group(&mut conn, vec![a, b, c, d]);
        assert!(matches!(ra.blocking_recv().unwrap(), Ok(())));
        assert!(matches!(
            rb.blocking_recv().unwrap(),
            Err(StoreError::ConditionFailed)
        ));
        // The panicking write dropped its answer: its caller hears "unavailable".
        assert!(rc.blocking_recv().is_err());
        assert!(matches!(rd.blocking_recv().unwrap(), Ok(())));
        assert!(stored(&conn, "a") && stored(&conn, "d"));
        assert!(!stored(&conn, "b") && !stored(&conn, "c"));
    }

    #[test]
    fn a_transaction_sqlite_ends_leaves_nothing_answered_as_written() {
        let (mut conn, _dir) = writer();
        let (a, ra) = writes("a", |_| Ok(()));
        // What SQLite does on a full disk or an I/O error: the whole transaction ends.
        let (b, rb) = writes("b", |c| c.execute_batch("ROLLBACK").map_err(unavailable));
        let (c, rc) = writes("c", |_| Ok(()));
        commit_group(&mut conn, vec![a, b, c]);
        assert!(matches!(
            ra.blocking_recv().unwrap(),
            Err(StoreError::Unavailable(_))
        ));
        assert!(matches!(
            rb.blocking_recv().unwrap(),
            Err(StoreError::Unavailable(_))
        ));
        // The write after it never ran outside the transaction.
        assert!(rc.blocking_recv().is_err());
        for id in ["a", "b", "c"] {
            assert!(!stored(&conn, id), "{id}");
        }
        // The writer carries on.
        let (d, rd) = writes("d", |_| Ok(()));
        commit_group(&mut conn, vec![d]);
        assert!(matches!(rd.blocking_recv().unwrap(), Ok(())));
        assert!(stored(&conn, "d"));
    }

    #[tokio::test]
    async fn writes_one_at_a_time_keep_the_wal_small() {
        let dir = tempfile::tempdir().unwrap();
        let s = EmbeddedStore::open(dir.path()).unwrap();
        // About 3000 pages of writes, one at a time (the writer is idle between them).
        let body = "x".repeat(3000);
        for i in 0..3000 {
            let r = Record::new(Key::new(Kind::Test, format!("w{i}")), &body, None).unwrap();
            s.put(r, Cond::Absent, Timestamp::from_secs(0))
                .await
                .unwrap();
        }
        let wal = std::fs::metadata(dir.path().join("scanid.db-wal"))
            .unwrap()
            .len();
        // Never checkpointed, the WAL would hold every page: over 12 MB.
        assert!(wal < 6 * 1024 * 1024, "WAL of {wal} bytes");
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
        let n = 2 * usize::try_from(SWEEP_BATCH).unwrap() + 7;
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
