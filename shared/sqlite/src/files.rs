//! The files the checkpointer syncs outside SQLite ([`crate::checkpoint`]), and the process-wide
//! registry that keeps the database file open once per process and file ([`Files`]).
//!
//! **Why not SQLite's own syncs.** SQLite syncs the database file only after a checkpoint that
//! copied every frame (`walCheckpoint`: `mxSafeFrame == mxFrame`), which under writes that never
//! pause only the writer's short checkpoint does: its fsync then flushed every page the
//! checkpointer had copied since the WAL last started over, tens of megabytes, 47-66 ms while
//! every write waited. With the checkpointer syncing the database file after each catch-up
//! checkpoint and the WAL before it hands over, the writer's checkpoint took 2-15 ms and the
//! ES256 code exchange's p99 went from 19-41 to 7-11 ms (A/B at load about 2, `99ce56d`,
//! measured on 2026-11-25; infra/README.md, "the writer's fsyncs"). SQLite has no call for such
//! a sync, so the file is ours to open, and then ours to keep open: closing a descriptor drops
//! every POSIX lock the process holds on the file, SQLite's included.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::micros;

/// The files the checkpointer syncs outside SQLite ([`checkpointer_loop`]).
///
/// The database file is opened once per process and file and closed only once no store of the
/// process uses it (and after this store's connections): closing a file descriptor drops every
/// POSIX lock the process holds on the file, SQLite's included, and in WAL mode each connection
/// holds a shared lock on the database file for as long as it is open, which is what tells
/// another process (an operator command) that it is not the last one and must not delete the
/// WAL. SQLite takes no lock on the WAL file, which is opened for each sync.
pub(crate) struct Files {
    db: Arc<std::fs::File>,
    wal: PathBuf,
}

impl Files {
    pub(crate) fn open(path: &Path) -> std::io::Result<Self> {
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

    pub(crate) fn sync_db(&self) {
        let started = std::time::Instant::now();
        match self.db.sync_data() {
            Ok(()) => tracing::debug!(us = micros(started), "synced the database file"),
            Err(e) => tracing::warn!(error = %e, "syncing the database file failed"),
        }
    }

    pub(crate) fn sync_wal(&self) {
        let started = std::time::Instant::now();
        match std::fs::File::open(&self.wal).and_then(|f| f.sync_data()) {
            Ok(()) => tracing::debug!(us = micros(started), "synced the WAL"),
            Err(e) => tracing::warn!(error = %e, "syncing the WAL failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
