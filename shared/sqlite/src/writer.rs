//! The writer thread: this process's one writing connection, which commits writes in groups
//! ([`writer_loop`]). It takes every write waiting in its queue (up to [`GROUP`]), runs each in
//! a savepoint of one transaction (a write whose condition fails rolls back to its savepoint
//! alone, [`commit_group`]), commits once, and only then answers each caller: a success is as
//! durable as with a commit per write, and a burst of writes costs one commit (its WAL frames
//! and wal-index update) instead of one each. A write is a [`Job`] ([`job`] makes one of a
//! closure); the store sends it and awaits its answer.
//!
//! **Why not a pool crate** (`deadpool-sqlite`, `tokio-rusqlite`, `r2d2_sqlite`): they run each
//! write as a task of its own on a blocking thread, with a transaction and a commit of its own,
//! which is what the first version did. Profiled on 2026-11-23 (infra/README.md, "What the
//! profile showed"), SQLite was over half of the code exchange's CPU: WAL page writes, the
//! automatic checkpoint, statements parsed again (5%), and futex wake-ups of tokio's blocking
//! pool, every write a blocking task queueing on the writing connection's mutex. With group
//! commit on this thread and cached statements (and the `kind` index dropped), the ES256 code
//! exchange went from 2,520 to 5,114 req/s and the ES256 refresh from 6,035 to 7,323 on the same
//! 2-core machine. `benches/writer.rs` times single-row writes through it
//! (`cargo bench -p scanid-sqlite --bench writer`): on 2026-11-28, on the same 2 cores shared
//! with other builds (load average 10), one put at a time 113-189 µs (each its own group and
//! commit), 100 at once 1.3-1.7 ms (about 15 µs a row: the groups at work).

use std::sync::atomic::Ordering;
use std::sync::mpsc;

use rusqlite::{Connection, TransactionBehavior};
use scanid_core::store::StoreError;

use crate::checkpoint::{restart_wal, Wal};

/// A write for the writer thread: runs on its connection inside a savepoint and says whether
/// it succeeded (else its savepoint is rolled back) and how to answer once the group's fate
/// is known. A job dropped unrun answers its caller "unavailable" (its reply channel closes).
pub(crate) type Job = Box<dyn FnOnce(&Connection) -> Ran + Send>;

pub(crate) struct Ran {
    ok: bool,
    answer: Answer,
}

/// Answers a write's caller: `None` when the group committed, else why it did not.
pub(crate) type Answer = Box<dyn FnOnce(Option<&str>) + Send>;

/// The most writes one commit takes.
pub(crate) const GROUP: usize = 128;

/// A job running `f`, and where its answer arrives.
pub(crate) fn job<T, F>(f: F) -> (Job, tokio::sync::oneshot::Receiver<Result<T, StoreError>>)
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
pub(crate) fn writer_loop(
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
    // `Files`).
    drop(conn);
    drop(checkpoints);
}

/// Runs `group` in one transaction, each job in its own savepoint, commits, and answers each
/// job once the outcome is known: its own error, or the commit's, or success. If SQLite ends
/// the transaction on its own (an I/O error, a full disk), every job run so far is answered
/// "not committed" and the rest are dropped unrun: nothing is ever written outside the group's
/// transaction, and nothing written is answered as failed.
pub(crate) fn commit_group(conn: &mut Connection, group: Vec<Job>) {
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
    if let Err(e) = run_cached(tx, "SAVEPOINT w") {
        // Nothing of this job ran; the job is dropped and its caller hears "unavailable".
        tracing::warn!(error = %e, "taking a savepoint failed");
        return Ok(None);
    }
    // A panicking job drops its reply channel while unwinding: its caller hears "unavailable".
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(tx))).ok();
    let ok = ran.as_ref().is_some_and(|r| r.ok);
    if ok && run_cached(tx, "RELEASE w").is_ok() {
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

/// Runs `sql`, one statement without parameters, prepared once per connection: a savepoint is
/// taken and released for every write, and `execute_batch` parsed each again (3% of a whole
/// QR login's instructions).
fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{fail_unless, get_live, put_one, unavailable};
    use scanid_core::store::{Cond, Key, Kind, Record};

    /// A connection to a fresh database, and a job that writes `id` and then answers `then`.
    fn writer() -> (Connection, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::EmbeddedStore::connect(&dir.path().join("scanid.db")).unwrap();
        conn.execute_batch(crate::schema::SCHEMA).unwrap();
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
}
