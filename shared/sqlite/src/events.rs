//! The audit events ([`EventStore`]) in their own table (`schema.rs`): appended by the writer
//! in one savepoint per batch, read by a pooled reader with the index the query's filters
//! pick (identity, client, else time), expired ones deleted by the sweep.

use async_trait::async_trait;
use rusqlite::{params, params_from_iter, types::Value};

use scanid_core::clock::Timestamp;
use scanid_core::store::events::{EventQuery, EventStore, StoredEvent};
use scanid_core::store::StoreError;

use crate::{unavailable, EmbeddedStore};

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
        self.with_writer(move |c| {
            let mut s = c
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
            Ok(())
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
            .with_conn(move |c| {
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
    /// Deletes expired events, 500 per write; returns how many.
    pub(crate) async fn sweep_events(&self, now: Timestamp) -> Result<usize, StoreError> {
        let now = now.secs();
        let mut total = 0;
        loop {
            let n = self
                .with_writer(move |c| {
                    c.prepare_cached(
                        "DELETE FROM events WHERE id IN
                         (SELECT id FROM events WHERE expires_at <= ?1 LIMIT 500)",
                    )
                    .and_then(|mut s| s.execute(params![now]))
                    .map_err(unavailable)
                })
                .await?;
            total += n;
            if n < 500 {
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
}
