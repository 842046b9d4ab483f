//! The audit events on DynamoDB ([`EventStore`]): a table of their own (template.yaml's
//! `EventsTable`), apart from the records, so that its TTL, its indexes and its write rate
//! never touch the login's table.
//!
//! | attribute    | type | what |
//! |--------------|------|------|
//! | `day`        | S    | partition key: `u#2026-11-28` (user events) or `a#...` (admin events), the UTC day |
//! | `id`         | S    | sort key: `{time ms, 13 digits}-{random}`, so a day's events sort by time |
//! | `client`     | S    | `u#{client_id}`: GSI `client-index` (`client`, `id`) |
//! | `user`       | S    | `u#{sub}`: GSI `user-index` (`user`, `id`) |
//! | `expires_at` | N    | Unix seconds; the table's TTL attribute (reads check it too) |
//! | `body`       | S    | the event's JSON |
//!
//! A query reads the index its filters pick (the identity's, else the client's, else the day
//! partitions from `dateTo` back to `dateFrom`), newest first, between the two times, and
//! filters the rest (type, expiry) as it reads, until it has `first + max`. Writes are
//! `BatchWriteItem`s of 25 (never on a request's path: see [`scanid_core::store::events`]).

use std::collections::HashMap;

use async_trait::async_trait;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement,
    KeyType, Projection, ProjectionType, PutRequest, ScalarAttributeType, TimeToLiveSpecification,
    WriteRequest,
};
use aws_sdk_dynamodb::Client;

use scanid_core::clock::Timestamp;
use scanid_core::store::events::{EventQuery, EventStore, StoredEvent};
use scanid_core::store::StoreError;

use crate::dynamo::{build_err, n, s, sdk_err, TTL_ATTRIBUTE};

/// The index by client.
pub const CLIENT_INDEX: &str = "client-index";
/// The index by identity.
pub const USER_INDEX: &str = "user-index";

/// The events table.
#[derive(Clone, Debug)]
pub struct DynamoEvents {
    client: Client,
    table: String,
}

type Item = HashMap<String, AttributeValue>;

fn side(admin: bool) -> &'static str {
    if admin {
        "a"
    } else {
        "u"
    }
}

/// The UTC day of `ms`, `yyyy-mm-dd`.
fn day(ms: i64) -> String {
    let d = time::OffsetDateTime::from_unix_timestamp(ms.div_euclid(1000))
        .map(|t| t.date())
        .unwrap_or(time::Date::MIN);
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

fn corrupt(e: serde_json::Error) -> StoreError {
    StoreError::Corrupt(Box::new(e))
}

impl DynamoEvents {
    /// The events table `table` through the SDK's `config`.
    pub fn new(config: &crate::SdkConfig, table: impl Into<String>) -> Self {
        Self {
            client: Client::new(config),
            table: table.into(),
        }
    }

    /// Creates the table (on-demand, both indexes, TTL) unless it exists (tests, `scanid aws
    /// init`; the stack has template.yaml's).
    pub async fn create_table(&self) -> Result<(), StoreError> {
        let attr = |name: &str| {
            AttributeDefinition::builder()
                .attribute_name(name)
                .attribute_type(ScalarAttributeType::S)
                .build()
                .map_err(build_err)
        };
        let key = |name: &str, t: KeyType| {
            KeySchemaElement::builder()
                .attribute_name(name)
                .key_type(t)
                .build()
                .map_err(build_err)
        };
        let gsi = |name: &str, hash: &str| -> Result<GlobalSecondaryIndex, StoreError> {
            GlobalSecondaryIndex::builder()
                .index_name(name)
                .key_schema(key(hash, KeyType::Hash)?)
                .key_schema(key("id", KeyType::Range)?)
                .projection(
                    Projection::builder()
                        .projection_type(ProjectionType::All)
                        .build(),
                )
                .build()
                .map_err(build_err)
        };
        let created = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(attr("day")?)
            .attribute_definitions(attr("id")?)
            .attribute_definitions(attr("client")?)
            .attribute_definitions(attr("user")?)
            .key_schema(key("day", KeyType::Hash)?)
            .key_schema(key("id", KeyType::Range)?)
            .global_secondary_indexes(gsi(CLIENT_INDEX, "client")?)
            .global_secondary_indexes(gsi(USER_INDEX, "user")?)
            .send()
            .await;
        match created {
            Ok(_) => {}
            Err(e)
                if aws_sdk_dynamodb::error::ProvideErrorMetadata::code(&e)
                    == Some("ResourceInUseException") =>
            {
                return Ok(())
            }
            Err(e) => return Err(sdk_err("create_table", e)),
        }
        self.client
            .update_time_to_live()
            .table_name(&self.table)
            .time_to_live_specification(
                TimeToLiveSpecification::builder()
                    .attribute_name(TTL_ATTRIBUTE)
                    .enabled(true)
                    .build()
                    .map_err(build_err)?,
            )
            .send()
            .await
            .map_err(|e| sdk_err("update_time_to_live", e))?;
        Ok(())
    }

    fn item(e: &StoredEvent) -> Result<Item, StoreError> {
        let side = side(e.is_admin());
        let mut item = Item::new();
        item.insert("day".into(), s(format!("{side}#{}", day(e.time))));
        item.insert("id".into(), s(&e.id));
        if let Some(c) = &e.client_id {
            item.insert("client".into(), s(format!("{side}#{c}")));
        }
        if let Some(u) = &e.sub {
            item.insert("user".into(), s(format!("{side}#{u}")));
        }
        item.insert(TTL_ATTRIBUTE.into(), n(e.expires_at));
        item.insert("body".into(), s(serde_json::to_string(e).map_err(corrupt)?));
        Ok(item)
    }

    /// One partition of an index (or of the table), newest first, between `lo` and `hi`
    /// (sort keys), appending matches to `out` until it holds `want`.
    #[allow(clippy::too_many_arguments)]
    async fn read(
        &self,
        index: Option<&str>,
        (name, value): (&str, String),
        (lo, hi): (&str, &str),
        q: &EventQuery,
        now: Timestamp,
        want: usize,
        out: &mut Vec<StoredEvent>,
    ) -> Result<(), StoreError> {
        let mut start: Option<Item> = None;
        loop {
            let r = self
                .client
                .query()
                .table_name(&self.table)
                .set_index_name(index.map(str::to_owned))
                .key_condition_expression("#p = :p AND #s BETWEEN :lo AND :hi")
                .expression_attribute_names("#p", name)
                .expression_attribute_names("#s", "id")
                .expression_attribute_values(":p", s(value.clone()))
                .expression_attribute_values(":lo", s(lo))
                .expression_attribute_values(":hi", s(hi))
                .scan_index_forward(false)
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| sdk_err("query events", e))?;
            for item in r.items() {
                let Some(AttributeValue::S(body)) = item.get("body") else {
                    continue;
                };
                let e: StoredEvent = serde_json::from_str(body).map_err(corrupt)?;
                if q.matches(&e, now) {
                    out.push(e);
                    if out.len() >= want {
                        return Ok(());
                    }
                }
            }
            match r.last_evaluated_key() {
                Some(k) if !k.is_empty() => start = Some(k.clone()),
                _ => return Ok(()),
            }
        }
    }
}

#[async_trait]
impl EventStore for DynamoEvents {
    async fn append(&self, events: Vec<StoredEvent>) -> Result<(), StoreError> {
        for chunk in events.chunks(25) {
            let mut writes = chunk
                .iter()
                .map(|e| {
                    let put = PutRequest::builder()
                        .set_item(Some(Self::item(e)?))
                        .build()
                        .map_err(build_err)?;
                    Ok(WriteRequest::builder().put_request(put).build())
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            // Unprocessed items (throttling) are sent again, a few times.
            for _ in 0..5 {
                if writes.is_empty() {
                    break;
                }
                let r = self
                    .client
                    .batch_write_item()
                    .request_items(&self.table, writes)
                    .send()
                    .await
                    .map_err(|e| sdk_err("batch_write_item events", e))?;
                writes = r
                    .unprocessed_items()
                    .and_then(|m| m.get(&self.table))
                    .cloned()
                    .unwrap_or_default();
            }
            if !writes.is_empty() {
                return Err(StoreError::Unavailable(
                    "dynamodb kept events unprocessed".into(),
                ));
            }
        }
        Ok(())
    }

    async fn events(&self, q: &EventQuery, now: Timestamp) -> Result<Vec<StoredEvent>, StoreError> {
        let want = q.first.saturating_add(q.max);
        let to = q.to.unwrap_or(now.millis()).min(now.millis());
        // Without a lower bound: a year back (the longest sensible retention is the caller's).
        let from = q.from.unwrap_or(to - 366 * 86_400_000).max(0);
        let (lo, hi) = (format!("{from:013}"), format!("{to:013}~"));
        let side = side(q.admin);
        let mut out = Vec::new();
        if want == 0 || from > to {
            return Ok(out);
        }
        if let Some(sub) = &q.sub {
            let key = ("user", format!("{side}#{sub}"));
            self.read(Some(USER_INDEX), key, (&lo, &hi), q, now, want, &mut out)
                .await?;
        } else if let Some(c) = &q.client_id {
            let key = ("client", format!("{side}#{c}"));
            self.read(Some(CLIENT_INDEX), key, (&lo, &hi), q, now, want, &mut out)
                .await?;
        } else {
            let first_day = from - from.rem_euclid(86_400_000);
            let mut t = to;
            while t >= first_day && out.len() < want {
                let key = ("day", format!("{side}#{}", day(t)));
                self.read(None, key, (&lo, &hi), q, now, want, &mut out)
                    .await?;
                t -= 86_400_000;
            }
        }
        Ok(out.into_iter().skip(q.first).take(q.max).collect())
    }
}

#[cfg(test)]
mod tests {
    scanid_core::event_suite!(async {
        let config = crate::emulator(&crate::dynamo::testing::endpoint()).await;
        let events = crate::events::DynamoEvents::new(&config, "scanid-unit-test-events");
        events.create_table().await.unwrap();
        (events, ())
    });
}
