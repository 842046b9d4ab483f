//! Checkpoints: copying the WAL back into the database file (with an fsync of each), on a
//! thread of their own ([`checkpointer_loop`]), never on the writer, and the writer's one short
//! checkpoint when the WAL is over its bound ([`restart_wal`]).
//!
//! The writer nudges the checkpointer after each commit; the checkpointer runs a PASSIVE
//! checkpoint (it waits for no reader or writer) at most once per [`CHECKPOINT_PAUSE`] (10 ms).
//! SQLite starts the WAL over only after a checkpoint that copied every frame, so under writes
//! that never pause the WAL grows: past [`crate::Tuning::wal_bound_pages`] the checkpointer
//! catches up (checkpoints back to back, each followed by an fsync of the database file, which
//! SQLite itself syncs only after a checkpoint that copied every frame: [`crate::files`]) and
//! the writer then runs one PASSIVE checkpoint between two groups, which copies and syncs only
//! the few frames committed since the checkpointer's last, and its next commit starts the WAL
//! over. The last resort, when checkpoints are slower than writes (a disk's slow fsyncs): past
//! twice the bound (SQLite's WAL hook counts the frames) the writer waits for the
//! checkpointer's checkpoint to end and runs its own, so writes go at the disk's pace and the
//! WAL stays bounded. No checkpoint ever waits inside SQLite for another connection of this
//! process: SQLite's busy handler sleeps in steps of up to 100 ms. Durability is unchanged: a
//! commit is in the WAL before it is answered, and a checkpoint syncs the WAL before it copies
//! it.
//!
//! **Why not SQLite's automatic checkpoint.** It runs on the connection that commits, and its
//! two fsyncs (5 to 15 ms each on the benchmark machine) stalled every write queued behind it
//! once per thousand pages, 10-30 ms: that was the code exchange's p99. Measured on 2026-11-25
//! (infra/README.md, "Issue 27: the write path" and "part 2"; 2 shared cores): checkpoints
//! moved to this thread (with the expiry index dropped and a larger writer cache), the ES256
//! code exchange went from 1,415 / 1,163 to 2,592 / 2,343 req/s at load 8 (p99 317 / 262 ->
//! 154 / 88 ms); a RESTART checkpoint here then held the writer 57-132 ms once a second (asleep
//! in SQLite's busy handler), which the catch-up and the writer's PASSIVE checkpoint replaced;
//! with the checkpointer's own fsyncs ([`crate::files`], `99ce56d`) the writer's checkpoint
//! takes 2-15 ms where it took 47-66, and the ES256 code exchange's p99 went from 19-41 to
//! 7-11 ms. The hard bound replaced SQLite's autocheckpoint at four times the bound, which gave
//! up whenever the checkpointer held the WAL (`826376e`).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use rusqlite::Connection;

use crate::files::Files;
use crate::micros;

/// The shortest time between two checkpoints of the checkpointer thread: frames written
/// meanwhile are copied together (a page written twice is copied once).
pub(crate) const CHECKPOINT_PAUSE: Duration = Duration::from_millis(10);

/// How long the checkpointer's connection waits for a lock another process holds.
pub(crate) const CHECKPOINT_WAIT: Duration = Duration::from_millis(5);

/// What the writer and the checkpointer share: the checkpointer's lock (held around every
/// checkpoint either runs, so that neither ever waits for the other inside SQLite, whose busy
/// handler sleeps in steps of up to 100 ms), and the checkpointer's word that the writer may
/// start the WAL over now ([`crate::writer::writer_loop`]).
#[derive(Default)]
pub(crate) struct Wal {
    pub(crate) checkpointing: Mutex<()>,
    pub(crate) restart: AtomicBool,
    /// Frames in the WAL after the writer's last commit (SQLite's WAL hook says).
    pub(crate) frames: AtomicI64,
    /// Past this many frames the writer checkpoints itself, waiting for the checkpointer if it
    /// must: the hard bound when checkpoints are slower than writes (a slow disk's fsyncs).
    pub(crate) hard_bound: i64,
}

/// Frames few enough for the writer to copy while writes wait (their fsyncs: a megabyte at most,
/// milliseconds).
const HANDOVER_FRAMES: i64 = 256;

/// Checkpoints back to back after which the checkpointer hands over to the writer even if
/// writes outrun it, so that the WAL stays bounded.
const CATCH_UP_ROUNDS: u32 = 8;

/// The writer's checkpoint past the bound (see [`crate::writer::writer_loop`]); skipped while the
/// checkpointer runs one (it hands over again if the WAL is still over the bound), unless
/// `wait`: past the hard bound the writer waits for the checkpointer's checkpoint to end and
/// runs its own, so that however slow checkpoints are, the WAL stays under about twice its
/// bound (writes wait meanwhile: the disk's pace becomes theirs).
pub(crate) fn restart_wal(conn: &Connection, wal: &Wal, wait: bool) {
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
/// start the WAL over (see [`crate::writer::writer_loop`]).
///
/// The fsyncs are the point: SQLite syncs the database file only after a checkpoint that
/// copied every frame, and the WAL before each checkpoint, so without them the writer's short
/// checkpoint synced every page the checkpointer had copied since the WAL last started over
/// (tens of megabytes: 47-66 ms while writes waited, the code exchange's p99). Now its fsyncs
/// find only the few frames committed since the checkpointer's last round dirty.
pub(crate) fn checkpointer_loop(
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
    // The connection first: the database file may be closed only after it (see `Files`).
    drop(conn);
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use rusqlite::Connection;
    use scanid_core::clock::Timestamp;
    use scanid_core::store::{Backend, Cond, Key, Kind, Record};

    use super::*;
    use crate::{EmbeddedStore, Tuning};

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
}
