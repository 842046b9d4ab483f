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
//!
//! Checkpoints (copying the WAL back into the database file, with an fsync of each) run on a
//! thread of their own, never on the writer: SQLite's automatic checkpoint runs on the
//! connection that commits, and its two fsyncs (5 to 15 ms each on the benchmark machine)
//! stalled every write queued behind it once per thousand pages, which was the code
//! exchange's p99. The writer nudges the checkpointer after each commit; the checkpointer runs
//! a PASSIVE checkpoint (it waits for no reader or writer) at most once per
//! `CHECKPOINT_PAUSE` (10 ms). SQLite starts the WAL over only after a checkpoint that copied every
//! frame, so under writes that never pause the WAL grows: past [`Tuning::wal_bound_pages`] the
//! checkpointer catches up (checkpoints back to back, each followed by an fsync of the
//! database file, which SQLite itself syncs only after a checkpoint that copied every frame)
//! and the writer then runs one PASSIVE checkpoint between two groups, which copies and syncs
//! only the few frames committed since the checkpointer's last, and its next commit starts the
//! WAL over. The last resort, when checkpoints are slower
//! than writes (a disk's slow fsyncs): past twice the bound (SQLite's WAL hook counts the
//! frames) the writer waits for the checkpointer's checkpoint to end and runs its own, so writes
//! go at the disk's pace and the WAL stays bounded. No checkpoint
//! ever waits inside SQLite for another connection of this process: SQLite's busy handler
//! sleeps in steps of up to 100 ms, which is what a RESTART checkpoint on the checkpointer
//! cost the writer before. Durability is unchanged: a commit is in the
//! WAL before it is answered, and a checkpoint syncs the WAL before it copies it.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod photos;
pub use photos::DirPhotos;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use scanid_core::clock::Timestamp;
use scanid_core::store::{Backend, Cond, Key, Kind, Record, StoreError, Write};

/// One table, keyed by `kind#id`, and no secondary index: the expiry index of earlier versions
/// (dropped here when a data dir of theirs is opened) was 38% of the pages a code exchange
/// wrote, because a code's expiry changes when it is redeemed. The sweep finds expired records
/// by a scan on a reader instead ([`EmbeddedStore::sweep`]).
const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS records (
    pk         TEXT PRIMARY KEY NOT NULL,
    kind       TEXT NOT NULL,
    body       TEXT NOT NULL,
    ver        INTEGER NOT NULL,
    expires_at INTEGER
) WITHOUT ROWID;
DROP INDEX IF EXISTS records_kind;
DROP INDEX IF EXISTS records_expiry;
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
const SWEEP_BATCH: usize = 500;

/// Expired records one scan of the sweep collects (about 50 bytes each).
const SCAN_BATCH: usize = 5_000;

/// The shortest time between two checkpoints of the checkpointer thread: frames written
/// meanwhile are copied together (a page written twice is copied once).
const CHECKPOINT_PAUSE: Duration = Duration::from_millis(10);

/// How long the checkpointer's connection waits for a lock another process holds.
const CHECKPOINT_WAIT: Duration = Duration::from_millis(5);

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
    /// of being read again from the file.
    pub writer_cache_kib: u32,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            wal_bound_pages: 16_384,
            writer_cache_kib: 8_192,
        }
    }
}

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

/// What the writer and the checkpointer share: the checkpointer's lock (held around every
/// checkpoint either runs, so that neither ever waits for the other inside SQLite, whose busy
/// handler sleeps in steps of up to 100 ms), and the checkpointer's word that the writer may
/// start the WAL over now ([`writer_loop`]).
#[derive(Default)]
struct Wal {
    checkpointing: Mutex<()>,
    restart: AtomicBool,
    /// Frames in the WAL after the writer's last commit (SQLite's WAL hook says).
    frames: AtomicI64,
    /// Past this many frames the writer checkpoints itself, waiting for the checkpointer if it
    /// must: the hard bound when checkpoints are slower than writes (a slow disk's fsyncs).
    hard_bound: i64,
}

/// Frames few enough for the writer to copy while writes wait (their fsyncs: a megabyte at most,
/// milliseconds).
const HANDOVER_FRAMES: i64 = 256;

/// Checkpoints back to back after which the checkpointer hands over to the writer even if
/// writes outrun it, so that the WAL stays bounded.
const CATCH_UP_ROUNDS: u32 = 8;

/// The writer thread: waits for a write, takes every other one queued behind it (up to
/// [`GROUP`]) and commits them as one group.
/// After each group it nudges the checkpointer (`checkpoints`); the checkpointer ends when the
/// writer does.
///
/// SQLite starts the WAL over only after a checkpoint that copied every frame, which the
/// checkpointer's never do while writes go on without a pause. When the WAL is over its bound
/// the checkpointer catches up (checkpoints back to back until the frames written during one
/// are few) and then says so; the writer then runs one PASSIVE checkpoint itself between two
/// groups: nothing is committed meanwhile, so it copies every frame (the few written since the
/// checkpointer's last) unless a reader still needs one, and the next group's commit starts
/// the WAL over. Writes wait for that one short checkpoint only, which waits for no reader and
/// no lock. Issue 27: a RESTART checkpoint on the checkpointer held the writer back 57-132 ms
/// once a second under the code exchange's load (the writer sleeping in SQLite's busy handler
/// meanwhile), and a writer's checkpoint without the catch-up 56-84 ms (the fsyncs of the
/// frames written during the checkpointer's last): both were the code exchange's p99.
fn writer_loop(
    mut conn: Connection,
    queue: mpsc::Receiver<Job>,
    checkpoints: mpsc::SyncSender<()>,
    wal: &Wal,
) {
    while let Ok(first) = queue.recv() {
        let mut group = vec![first];
        while group.len() < GROUP {
            match queue.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        commit_group(&mut conn, group);
        if wal.restart.swap(false, Ordering::Relaxed) {
            restart_wal(&conn, wal, false);
        } else if wal.frames.load(Ordering::Relaxed) > wal.hard_bound {
            restart_wal(&conn, wal, true);
        }
        // Full: a nudge is waiting already, and the checkpoint it starts copies this group too.
        let _ = checkpoints.try_send(());
    }
    // The connection before the checkpointer's end, which may close the database file (see
    // [`Files`]).
    drop(conn);
    drop(checkpoints);
}

/// The writer's checkpoint past the bound (see [`writer_loop`]); skipped while the
/// checkpointer runs one (it hands over again if the WAL is still over the bound), unless
/// `wait`: past the hard bound the writer waits for the checkpointer's checkpoint to end and
/// runs its own, so that however slow checkpoints are, the WAL stays under about twice its
/// bound (writes wait meanwhile: the disk's pace becomes theirs).
fn restart_wal(conn: &Connection, wal: &Wal, wait: bool) {
    let held = if wait {
        wal.checkpointing.lock().ok()
    } else {
        wal.checkpointing.try_lock().ok()
    };
    let Some(_held) = held else {
        return;
    };
    let started = std::time::Instant::now();
    match checkpoint(conn, "PASSIVE") {
        Ok((busy, log, copied)) => tracing::debug!(
            busy,
            log,
            copied,
            us = micros(started),
            "the writer's checkpoint past the WAL's bound"
        ),
        Err(e) => tracing::warn!(error = %e, "the writer's checkpoint failed"),
    }
}

fn micros(since: std::time::Instant) -> u64 {
    u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// A checkpoint of `mode`: (busy, frames in the WAL, frames copied), as SQLite reports them.
fn checkpoint(conn: &Connection, mode: &str) -> rusqlite::Result<(i64, i64, i64)> {
    conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })
}

/// The checkpointer thread: after each nudge, a PASSIVE checkpoint (it copies what no reader
/// still needs and waits for nobody), then a pause of [`CHECKPOINT_PAUSE`]. A nudge that
/// arrives during a checkpoint or the pause waits in the channel, so the last commit is
/// always followed by a checkpoint that starts after it: once writes pause, the WAL is copied
/// whole and the next write starts it over.
///
/// Past `bound` frames in the WAL it catches up: checkpoints back to back, without the pause,
/// each followed by an fsync of the database file (`files`), until fewer than
/// [`HANDOVER_FRAMES`] were committed since the last one copied (or for [`CATCH_UP_ROUNDS`],
/// or until the WAL is a quarter over the bound); then it syncs the WAL and lets the writer
/// start the WAL over (see [`writer_loop`]).
///
/// The fsyncs are the point: SQLite syncs the database file only after a checkpoint that
/// copied every frame, and the WAL before each checkpoint, so without them the writer's short
/// checkpoint synced every page the checkpointer had copied since the WAL last started over
/// (tens of megabytes: 47-66 ms while writes waited, the code exchange's p99). Now its fsyncs
/// find only the few frames committed since the checkpointer's last round dirty.
fn checkpointer_loop(
    conn: Connection,
    nudges: mpsc::Receiver<()>,
    wal: &Wal,
    bound: u32,
    files: &Files,
) {
    let mut rounds = 0;
    while nudges.recv().is_ok() {
        loop {
            let started = std::time::Instant::now();
            let ran = match wal.checkpointing.lock() {
                Ok(_held) => checkpoint(&conn, "PASSIVE"),
                Err(_) => return,
            };
            let (busy, log, copied) = match ran {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(error = %e, "a checkpoint failed (the next one retries)");
                    break;
                }
            };
            tracing::debug!(busy, log, copied, us = micros(started), "checkpoint");
            if log <= i64::from(bound) {
                rounds = 0;
                break;
            }
            rounds += 1;
            files.sync_db();
            // Frames committed since this checkpoint's snapshot, which the writer's would copy
            // (none if the WAL started over meanwhile).
            let pending = (wal.frames.load(Ordering::Relaxed) - copied).max(0);
            // Writes outrunning the catch-up, or a WAL a quarter over its bound, hand over at once.
            let bound = i64::from(bound);
            if pending <= HANDOVER_FRAMES || rounds >= CATCH_UP_ROUNDS || log > bound + bound / 4 {
                rounds = 0;
                files.sync_wal();
                wal.restart.store(true, Ordering::Relaxed);
                break;
            }
        }
        #[allow(
            clippy::disallowed_methods,
            reason = "the checkpointer is a thread of its own, paced by its pause"
        )]
        std::thread::sleep(CHECKPOINT_PAUSE);
    }
    // The connection first: the database file may be closed only after it (see [`Files`]).
    drop(conn);
}

/// The files the checkpointer syncs outside SQLite ([`checkpointer_loop`]).
///
/// The database file is opened once per process and file and closed only once no store of the
/// process uses it (and after this store's connections): closing a file descriptor drops every
/// POSIX lock the process holds on the file, SQLite's included, and in WAL mode each connection
/// holds a shared lock on the database file for as long as it is open, which is what tells
/// another process (an operator command) that it is not the last one and must not delete the
/// WAL. SQLite takes no lock on the WAL file, which is opened for each sync.
struct Files {
    db: Arc<std::fs::File>,
    wal: PathBuf,
}

impl Files {
    fn open(path: &Path) -> std::io::Result<Self> {
        static OPEN: Mutex<Vec<(PathBuf, std::sync::Weak<std::fs::File>)>> = Mutex::new(Vec::new());
        let path = std::fs::canonicalize(path)?;
        let mut wal = path.clone().into_os_string();
        wal.push("-wal");
        let mut open = OPEN
            .lock()
            .map_err(|_| std::io::Error::other("the open database files' list"))?;
        open.retain(|(_, f)| f.strong_count() > 0);
        let shared = open
            .iter()
            .find(|(p, _)| *p == path)
            .and_then(|(_, f)| f.upgrade());
        let db = match shared {
            Some(db) => db,
            None => {
                let db = Arc::new(std::fs::File::open(&path)?);
                open.push((path, Arc::downgrade(&db)));
                db
            }
        };
        Ok(Self {
            db,
            wal: wal.into(),
        })
    }

    fn sync_db(&self) {
        let started = std::time::Instant::now();
        match self.db.sync_data() {
            Ok(()) => tracing::debug!(us = micros(started), "synced the database file"),
            Err(e) => tracing::warn!(error = %e, "syncing the database file failed"),
        }
    }

    fn sync_wal(&self) {
        let started = std::time::Instant::now();
        match std::fs::File::open(&self.wal).and_then(|f| f.sync_data()) {
            Ok(()) => tracing::debug!(us = micros(started), "synced the WAL"),
            Err(e) => tracing::warn!(error = %e, "syncing the WAL failed"),
        }
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
        Self::open_tuned(data_dir, Tuning::default())
    }

    /// [`EmbeddedStore::open`] with the given tuning.
    pub fn open_tuned(data_dir: &Path, tuning: Tuning) -> Result<Self, StoreError> {
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
        // The writer's own checkpoint is a last resort, at twice the bound ([`restart_wal`]);
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
    async fn writes_without_a_pause_keep_the_wal_under_its_bound() {
        let dir = tempfile::tempdir().unwrap();
        let tuning = Tuning {
            wal_bound_pages: 500,
            ..Tuning::default()
        };
        let s = EmbeddedStore::open_tuned(dir.path(), tuning).unwrap();
        // About 3000 pages of writes, one after the other.
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

    #[test]
    fn the_database_file_stays_open_while_a_store_of_the_process_uses_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scanid.db");
        std::fs::write(&path, b"").unwrap();
        let a = Files::open(&path).unwrap();
        // The same file by another name: one descriptor, which closing one store's handle
        // must not close (that would drop the other's SQLite locks).
        let b = Files::open(&dir.path().join(".").join("scanid.db")).unwrap();
        assert!(Arc::ptr_eq(&a.db, &b.db));
        assert_eq!(Arc::strong_count(&b.db), 2);
        drop(a);
        assert_eq!(Arc::strong_count(&b.db), 1);
        let other = tempfile::tempdir().unwrap();
        let other_path = other.path().join("scanid.db");
        std::fs::write(&other_path, b"").unwrap();
        assert!(!Arc::ptr_eq(&Files::open(&other_path).unwrap().db, &b.db));
        let weak = Arc::downgrade(&b.db);
        drop(b);
        // Closed with the last store that used it; the next one opens it anew.
        assert!(weak.upgrade().is_none());
        let c = Files::open(&path).unwrap();
        c.sync_db();
        c.sync_wal();
        assert!(std::fs::metadata(dir.path().join("scanid.db-wal")).is_err());
    }

    /// The database file as it is without its WAL (what the checkpoints have copied there).
    /// Read while a checkpoint writes it, the file may not parse: that reads as "not yet".
    fn in_the_file(dir: &Path, id: &str) -> bool {
        let uri = format!("file:{}?immutable=1", dir.join("scanid.db").display());
        Connection::open_with_flags(
            uri,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
        )
        .and_then(|c| {
            c.query_row(
                "SELECT count(*) FROM records WHERE pk = ?1",
                [Key::new(Kind::Test, id).pk()],
                |r| r.get::<_, i64>(0),
            )
        })
        .is_ok_and(|n| n == 1)
    }

    #[tokio::test]
    async fn the_checkpointer_copies_the_wal_while_the_writer_does_not() {
        let dir = tempfile::tempdir().unwrap();
        // The writer's own checkpoint would come only after 16,384 pages.
        let s = EmbeddedStore::open(dir.path()).unwrap();
        for i in 0..50 {
            let r = Record::new(Key::new(Kind::Test, format!("c{i}")), &i, None).unwrap();
            s.put(r, Cond::Absent, Timestamp::from_secs(0))
                .await
                .unwrap();
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !in_the_file(dir.path(), "c49") {
            assert!(
                std::time::Instant::now() < deadline,
                "no checkpoint copied the last write into the database file"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(in_the_file(dir.path(), "c0"));
        // Once the WAL is copied whole, the next write starts it over.
        let r = Record::new(Key::new(Kind::Test, "after"), &1, None).unwrap();
        s.put(r, Cond::Absent, Timestamp::from_secs(0))
            .await
            .unwrap();
        let c = Connection::open(dir.path().join("scanid.db")).unwrap();
        let (log, _): (i64, i64) = c
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                Ok((r.get(1)?, r.get(2)?))
            })
            .unwrap();
        assert!(log < 10, "the WAL holds {log} frames after a pause");
    }

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
