//! The DynamoDB store: one table, one item per record (the single-table design).
//!
//! | attribute    | type | what |
//! |--------------|------|------|
//! | `pk`         | S    | partition key, `kind#id` (e.g. `code#<hash>`, `client#<id>`) |
//! | `body`       | S    | the record's JSON |
//! | `ver`        | N    | version, for optimistic concurrency |
//! | `expires_at` | N    | Unix seconds; the table's TTL attribute. Reads check it too: TTL deletes lag by days |
//! | `n`          | N    | a counter's value (rate limits), instead of `body` |
//! | `lk`         | S    | the kind, only on listed kinds (clients, identities): the sparse GSI `kind-index` |
//!
//! Every condition is evaluated by DynamoDB in the write itself: `Cond::Absent` is
//! `attribute_not_exists(pk) OR expires_at <= :now`, a version check is `ver = :v` on a live
//! item, and [`Backend::consume`] is one `DeleteItem` whose condition says "live" with
//! `ReturnValues=ALL_OLD`: of concurrent callers exactly one gets the item. Transactions are
//! `TransactWriteItems`. Reads are strongly consistent. Operator listings query the sparse GSI
//! (eventually consistent, and never on a request path).
//!
//! Errors: a failed condition is [`StoreError::ConditionFailed`]; everything else (throttling
//! after the SDK's retries, timeouts, access denied, a missing table) is
//! [`StoreError::Unavailable`], logged here with its detail and answered as 503.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ConditionCheck, Delete, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, Projection, ProjectionType, Put, ReturnValue, ScalarAttributeType,
    TimeToLiveSpecification, TransactWriteItem,
};
use aws_sdk_dynamodb::Client;

use scanid_core::clock::Timestamp;
use scanid_core::store::{Backend, Cond, Key, Kind, Record, StoreError, Write};

/// The TTL attribute.
pub const TTL_ATTRIBUTE: &str = "expires_at";
/// The sparse index that lists clients and identities.
pub const KIND_INDEX: &str = "kind-index";

/// The DynamoDB adapter.
#[derive(Clone, Debug)]
pub struct DynamoStore {
    client: Client,
    table: String,
}

type Item = HashMap<String, AttributeValue>;

pub(crate) fn s(v: impl Into<String>) -> AttributeValue {
    AttributeValue::S(v.into())
}
pub(crate) fn n(v: impl ToString) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

/// Kinds an operator lists; only these carry the `lk` attribute (so the index stays small and
/// write-heavy kinds such as rate counters never touch it).
fn listed(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Client | Kind::Identity | Kind::SigningKey | Kind::Test
    )
}

/// Turns an SDK error into the store's: conditions are the caller's business, the rest is an
/// outage (logged with its detail, never shown to a client).
pub(crate) fn sdk_err<E, R>(op: &'static str, e: SdkError<E, R>) -> StoreError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
    R: std::fmt::Debug,
{
    if e.code() == Some("ConditionalCheckFailedException") {
        return StoreError::ConditionFailed;
    }
    let detail = crate::error_detail(&e);
    tracing::error!(op, error = %detail, "dynamodb call failed");
    StoreError::Unavailable(format!("dynamodb {op}: {detail}").into())
}

fn item_of(r: &Record) -> Item {
    let mut item = Item::new();
    item.insert("pk".into(), s(r.key.pk()));
    item.insert("body".into(), s(r.body.clone()));
    item.insert("ver".into(), n(r.version));
    if let Some(e) = r.expires_at {
        item.insert(TTL_ATTRIBUTE.into(), n(e));
    }
    if listed(r.key.kind) {
        item.insert("lk".into(), s(r.key.kind.as_str()));
    }
    item
}

fn num(item: &Item, name: &str) -> Result<Option<i64>, StoreError> {
    match item.get(name) {
        None => Ok(None),
        Some(AttributeValue::N(v)) => v
            .parse()
            .map(Some)
            .map_err(|_| StoreError::Corrupt(format!("{name}: {v:?}").into())),
        Some(_) => Err(StoreError::Corrupt(format!("{name}: not a number").into())),
    }
}

fn record_of(key: Key, item: &Item) -> Result<Record, StoreError> {
    let body = match (item.get("body"), num(item, "n")?) {
        (Some(AttributeValue::S(b)), _) => b.clone(),
        (_, Some(count)) => count.to_string(),
        _ => return Err(StoreError::Corrupt(format!("{}: no body", key.pk()).into())),
    };
    let version = num(item, "ver")?.unwrap_or(1);
    Ok(Record {
        key,
        body,
        version: u64::try_from(version).unwrap_or(1),
        expires_at: num(item, TTL_ATTRIBUTE)?,
    })
}

fn is_live(item: &Item, now: Timestamp) -> Result<bool, StoreError> {
    Ok(num(item, TTL_ATTRIBUTE)?.is_none_or(|e| now.secs() < e))
}

const LIVE: &str =
    "attribute_exists(pk) AND (attribute_not_exists(expires_at) OR expires_at > :now)";

/// The condition expression and its values for `cond`, as the request builders take them
/// (`None` for [`Cond::Any`]).
fn condition(cond: Cond, now: Timestamp) -> (Option<String>, Option<Item>) {
    let (expr, values) = match cond {
        Cond::Any => return (None, None),
        Cond::Absent => (
            "attribute_not_exists(pk) OR expires_at <= :now",
            vec![(":now", n(now.secs()))],
        ),
        Cond::Version(v) => (
            "attribute_exists(pk) AND ver = :v AND (attribute_not_exists(expires_at) OR expires_at > :now)",
            vec![(":now", n(now.secs())), (":v", n(v))],
        ),
    };
    let values = values.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    (Some(expr.to_owned()), Some(values))
}

pub(crate) fn build_err(e: impl std::fmt::Display) -> StoreError {
    StoreError::Unavailable(format!("dynamodb request: {e}").into())
}

impl DynamoStore {
    /// A store on `table` through `client`.
    pub fn new(client: Client, table: impl Into<String>) -> Self {
        Self {
            client,
            table: table.into(),
        }
    }

    /// From an SDK configuration (see [`crate`]).
    pub fn from_config(config: &crate::SdkConfig, table: impl Into<String>) -> Self {
        Self::new(Client::new(config), table)
    }

    /// The table's name.
    pub fn table(&self) -> &str {
        &self.table
    }

    /// Opens a connection to DynamoDB (TLS handshake included) so the first request does not
    /// pay for it, and checks the table exists and is readable.
    pub async fn warm(&self) -> Result<(), StoreError> {
        self.client
            .get_item()
            .table_name(&self.table)
            .key("pk", s("warm#"))
            .send()
            .await
            .map(|_| ())
            .map_err(|e| sdk_err("warm", e))
    }

    /// Creates the table (on-demand billing, the sparse kind index, TTL on `expires_at`,
    /// point-in-time recovery) unless it exists, and waits until it is active. Returns whether
    /// it was created.
    pub async fn create_table(&self) -> Result<bool, StoreError> {
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
        let gsi = GlobalSecondaryIndex::builder()
            .index_name(KIND_INDEX)
            .key_schema(key("lk", KeyType::Hash)?)
            .key_schema(key("pk", KeyType::Range)?)
            .projection(
                Projection::builder()
                    .projection_type(ProjectionType::All)
                    .build(),
            )
            .build()
            .map_err(build_err)?;
        let created = self
            .client
            .create_table()
            .table_name(&self.table)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(attr("pk")?)
            .attribute_definitions(attr("lk")?)
            .key_schema(key("pk", KeyType::Hash)?)
            .global_secondary_indexes(gsi)
            .send()
            .await;
        let created = match created {
            Ok(_) => true,
            Err(e) if e.code() == Some("ResourceInUseException") => false,
            Err(e) => return Err(sdk_err("create_table", e)),
        };
        for _ in 0..120 {
            let d = self
                .client
                .describe_table()
                .table_name(&self.table)
                .send()
                .await
                .map_err(|e| sdk_err("describe_table", e))?;
            let active = d
                .table()
                .and_then(|t| t.table_status())
                .is_some_and(|st| st.as_str() == "ACTIVE");
            if active {
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        if created {
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
            self.client
                .update_continuous_backups()
                .table_name(&self.table)
                .point_in_time_recovery_specification(
                    aws_sdk_dynamodb::types::PointInTimeRecoverySpecification::builder()
                        .point_in_time_recovery_enabled(true)
                        .build()
                        .map_err(build_err)?,
                )
                .send()
                .await
                .map_err(|e| sdk_err("update_continuous_backups", e))?;
        }
        Ok(created)
    }

    /// `GetItem`, strongly consistent or not (half the read units).
    async fn get_item(
        &self,
        key: &Key,
        consistent: bool,
        now: Timestamp,
    ) -> Result<Option<Record>, StoreError> {
        let out = self
            .client
            .get_item()
            .table_name(&self.table)
            .key("pk", s(key.pk()))
            .consistent_read(consistent)
            .send()
            .await
            .map_err(|e| sdk_err("get_item", e))?;
        match out.item() {
            Some(item) if is_live(item, now)? => Ok(Some(record_of(key.clone(), item)?)),
            _ => Ok(None),
        }
    }

    fn transact_item(
        &self,
        w: Write,
        now: Timestamp,
    ) -> Result<Option<TransactWriteItem>, StoreError> {
        let item = match w {
            Write::Put(r, cond) => {
                let (expr, values) = condition(cond, now);
                let put = Put::builder()
                    .table_name(&self.table)
                    .set_item(Some(item_of(&r)))
                    .set_condition_expression(expr)
                    .set_expression_attribute_values(values)
                    .build()
                    .map_err(build_err)?;
                TransactWriteItem::builder().put(put).build()
            }
            Write::Delete(k, cond) => {
                let (expr, values) = condition(cond, now);
                let del = Delete::builder()
                    .table_name(&self.table)
                    .key("pk", s(k.pk()))
                    .set_condition_expression(expr)
                    .set_expression_attribute_values(values)
                    .build()
                    .map_err(build_err)?;
                TransactWriteItem::builder().delete(del).build()
            }
            Write::Check(k, cond) => {
                let (Some(expr), values) = condition(cond, now) else {
                    return Ok(None);
                };
                let check = ConditionCheck::builder()
                    .table_name(&self.table)
                    .key("pk", s(k.pk()))
                    .condition_expression(expr)
                    .set_expression_attribute_values(values)
                    .build()
                    .map_err(build_err)?;
                TransactWriteItem::builder().condition_check(check).build()
            }
        };
        Ok(Some(item))
    }
}

#[async_trait]
impl Backend for DynamoStore {
    async fn get(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.get_item(key, true, now).await
    }

    async fn get_eventual(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        self.get_item(key, false, now).await
    }

    async fn put(&self, record: Record, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        let (expr, values) = condition(cond, now);
        self.client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item_of(&record)))
            .set_condition_expression(expr)
            .set_expression_attribute_values(values)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| sdk_err("put_item", e))
    }

    async fn delete(&self, key: &Key, cond: Cond, now: Timestamp) -> Result<(), StoreError> {
        let (expr, values) = condition(cond, now);
        self.client
            .delete_item()
            .table_name(&self.table)
            .key("pk", s(key.pk()))
            .set_condition_expression(expr)
            .set_expression_attribute_values(values)
            .send()
            .await
            .map(|_| ())
            .map_err(|e| sdk_err("delete_item", e))
    }

    async fn consume(&self, key: &Key, now: Timestamp) -> Result<Option<Record>, StoreError> {
        let out = self
            .client
            .delete_item()
            .table_name(&self.table)
            .key("pk", s(key.pk()))
            .condition_expression(LIVE)
            .expression_attribute_values(":now", n(now.secs()))
            .return_values(ReturnValue::AllOld)
            .send()
            .await;
        match out {
            Ok(out) => out
                .attributes()
                .map(|item| record_of(key.clone(), item))
                .transpose(),
            Err(e) => match sdk_err("consume", e) {
                StoreError::ConditionFailed => Ok(None),
                other => Err(other),
            },
        }
    }

    async fn transact(&self, writes: Vec<Write>, now: Timestamp) -> Result<(), StoreError> {
        let mut items = Vec::with_capacity(writes.len());
        for w in writes {
            if let Some(item) = self.transact_item(w, now)? {
                items.push(item);
            }
        }
        if items.is_empty() {
            return Ok(());
        }
        // A transaction that meets another one in flight on the same item is cancelled with
        // `TransactionConflict`; neither has won yet, so try again (briefly) rather than report
        // a condition that may yet hold.
        let mut backoff = Duration::from_millis(10);
        for attempt in 0..5 {
            let out = self
                .client
                .transact_write_items()
                .set_transact_items(Some(items.clone()))
                .send()
                .await;
            let e = match out {
                Ok(_) => return Ok(()),
                Err(e) => e,
            };
            let reasons: Vec<String> = e
                .as_service_error()
                .and_then(|se| match se {
                    aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError::TransactionCanceledException(c) => {
                        Some(c.cancellation_reasons().iter().filter_map(|r| r.code().map(str::to_owned)).collect())
                    }
                    _ => None,
                })
                .unwrap_or_default();
            if reasons.iter().any(|r| r == "ConditionalCheckFailed") {
                return Err(StoreError::ConditionFailed);
            }
            if reasons.iter().any(|r| r == "TransactionConflict") && attempt < 4 {
                tokio::time::sleep(backoff).await;
                backoff *= 2;
                continue;
            }
            return Err(sdk_err("transact_write_items", e));
        }
        Err(StoreError::Unavailable(
            "dynamodb transact_write_items: conflicts".into(),
        ))
    }

    async fn list(&self, kind: Kind, now: Timestamp) -> Result<Vec<Record>, StoreError> {
        if !listed(kind) {
            return Err(StoreError::Unavailable(
                format!("{} records are not listed", kind.as_str()).into(),
            ));
        }
        let prefix = format!("{}#", kind.as_str());
        let mut out = Vec::new();
        let mut start: Option<Item> = None;
        loop {
            let page = self
                .client
                .query()
                .table_name(&self.table)
                .index_name(KIND_INDEX)
                .key_condition_expression("lk = :k")
                .expression_attribute_values(":k", s(kind.as_str()))
                .set_exclusive_start_key(start.take())
                .send()
                .await
                .map_err(|e| sdk_err("query", e))?;
            for item in page.items() {
                let Some(AttributeValue::S(pk)) = item.get("pk") else {
                    continue;
                };
                let Some(id) = pk.strip_prefix(&prefix) else {
                    continue;
                };
                if is_live(item, now)? {
                    out.push(record_of(Key::new(kind, id), item)?);
                }
            }
            match page.last_evaluated_key() {
                Some(k) if !k.is_empty() => start = Some(k.clone()),
                _ => break,
            }
        }
        out.sort_by(|a, b| a.key.id.cmp(&b.key.id));
        Ok(out)
    }

    async fn incr(&self, key: &Key, expires_at: i64, now: Timestamp) -> Result<u64, StoreError> {
        for _ in 0..5 {
            // Count on a live (or new) counter...
            let out = self
                .client
                .update_item()
                .table_name(&self.table)
                .key("pk", s(key.pk()))
                .update_expression(
                    "ADD n :one, ver :one SET expires_at = if_not_exists(expires_at, :exp)",
                )
                .condition_expression("attribute_not_exists(pk) OR expires_at > :now")
                .expression_attribute_values(":one", n(1))
                .expression_attribute_values(":exp", n(expires_at))
                .expression_attribute_values(":now", n(now.secs()))
                .return_values(ReturnValue::UpdatedNew)
                .send()
                .await;
            match out {
                Ok(out) => {
                    let count = out
                        .attributes()
                        .map(|a| num(a, "n"))
                        .transpose()?
                        .flatten()
                        .unwrap_or(1);
                    return Ok(u64::try_from(count).unwrap_or(u64::MAX));
                }
                Err(e) => match sdk_err("incr", e) {
                    StoreError::ConditionFailed => {}
                    other => return Err(other),
                },
            }
            // ...or restart an expired one (TTL has not removed it yet) at 1, if it is still
            // expired when the write lands; otherwise someone else restarted it: count again.
            let mut item = Item::new();
            item.insert("pk".into(), s(key.pk()));
            item.insert("n".into(), n(1));
            item.insert("ver".into(), n(1));
            item.insert(TTL_ATTRIBUTE.into(), n(expires_at));
            let reset = self
                .client
                .put_item()
                .table_name(&self.table)
                .set_item(Some(item))
                .condition_expression("expires_at <= :now")
                .expression_attribute_values(":now", n(now.secs()))
                .send()
                .await;
            match reset {
                Ok(_) => return Ok(1),
                Err(e) => match sdk_err("incr reset", e) {
                    StoreError::ConditionFailed => {}
                    other => return Err(other),
                },
            }
        }
        Err(StoreError::Unavailable(
            format!("counter {}: too much contention", key.pk()).into(),
        ))
    }
}

/// Test support: the emulator the test command starts (moto server), and a fake DynamoDB that
/// throttles.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// The emulator's endpoint. The test command (`tests/run`) starts moto and sets it.
    pub(crate) fn endpoint() -> String {
        match std::env::var("SCANID_TEST_AWS_ENDPOINT") {
            Ok(e) if !e.is_empty() => e,
            _ => panic!(
                "SCANID_TEST_AWS_ENDPOINT is not set: the DynamoDB and KMS tests need the AWS \
                 emulator; run `bash tests/run`, or start it with `infra/emulator.sh start` and \
                 export the endpoint it prints"
            ),
        }
    }

    /// A store on the shared test table of the emulator (created on first use).
    pub(crate) async fn store() -> DynamoStore {
        let config = crate::emulator(&endpoint()).await;
        let store = DynamoStore::from_config(&config, "scanid-unit-tests");
        store.create_table().await.unwrap();
        store
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    scanid_core::adapter_suite!(async { (testing::store().await, ()) });

    #[tokio::test]
    async fn create_table_is_idempotent_and_sets_ttl() {
        let config = crate::emulator(&testing::endpoint()).await;
        let name = format!("scanid-create-{}", uuid::Uuid::new_v4());
        let store = DynamoStore::from_config(&config, &name);
        assert!(store.create_table().await.unwrap());
        assert!(!store.create_table().await.unwrap());
        let client = Client::new(&config);
        let ttl = client
            .describe_time_to_live()
            .table_name(&name)
            .send()
            .await
            .unwrap();
        let d = ttl.time_to_live_description().unwrap();
        assert_eq!(d.attribute_name(), Some(TTL_ATTRIBUTE));
        let t = client
            .describe_table()
            .table_name(&name)
            .send()
            .await
            .unwrap();
        let t = t.table().unwrap();
        assert_eq!(
            t.billing_mode_summary().and_then(|b| b.billing_mode()),
            Some(&BillingMode::PayPerRequest)
        );
        assert_eq!(
            t.global_secondary_indexes()[0].index_name(),
            Some(KIND_INDEX)
        );
        store.warm().await.unwrap();
        client
            .delete_table()
            .table_name(&name)
            .send()
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_missing_table_is_unavailable_not_a_panic() {
        let config = crate::emulator(&testing::endpoint()).await;
        let store = DynamoStore::from_config(&config, "scanid-no-such-table");
        let now = Timestamp::from_secs(1);
        let err = store
            .get(&Key::new(Kind::Test, "x"), now)
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
        assert!(store.warm().await.is_err());
    }

    #[tokio::test]
    async fn counters_written_by_incr_read_back_as_records() {
        let store = testing::store().await;
        let now = Timestamp::from_secs(1_800_000_000);
        let key = Key::new(Kind::Rate, format!("t-{}", uuid::Uuid::new_v4()));
        store.incr(&key, now.secs() + 60, now).await.unwrap();
        store.incr(&key, now.secs() + 60, now).await.unwrap();
        let r = store.get(&key, now).await.unwrap().unwrap();
        assert_eq!(r.body, "2");
        assert_eq!(r.expires_at, Some(now.secs() + 60));
    }

    /// A fake DynamoDB endpoint: answers the first `throttle` requests with
    /// `ThrottlingException` (HTTP 400, as DynamoDB does), then `{}` (an empty GetItem).
    async fn fake_dynamodb(throttle: usize) -> crate::fake::FakeAws {
        let seen = AtomicUsize::new(0);
        crate::fake::FakeAws::start(move |_, _| {
            if seen.fetch_add(1, Ordering::SeqCst) < throttle {
                (
                    400,
                    crate::fake::error(
                        "com.amazonaws.dynamodb.v20120810#ThrottlingException",
                        "Rate of requests exceeds the allowed throughput.",
                    ),
                )
            } else {
                (200, "{}".into())
            }
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn throttling_is_retried_with_backoff() {
        let fake = fake_dynamodb(2).await;
        let config = crate::emulator(&fake.endpoint).await;
        let store = DynamoStore::from_config(&config, "t");
        let got = store
            .get(&Key::new(Kind::Test, "x"), Timestamp::from_secs(1))
            .await
            .unwrap();
        assert_eq!(got, None);
        assert_eq!(
            fake.count("GetItem"),
            3,
            "two throttled tries, then success"
        );
    }

    #[tokio::test]
    async fn throttling_that_does_not_end_is_unavailable_within_the_budget() {
        let fake = fake_dynamodb(usize::MAX).await;
        let config = crate::emulator(&fake.endpoint).await;
        let store = DynamoStore::from_config(&config, "t");
        let started = std::time::Instant::now();
        let err = store
            .get(&Key::new(Kind::Test, "x"), Timestamp::from_secs(1))
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
        assert_eq!(fake.count("GetItem"), crate::MAX_ATTEMPTS as usize);
        assert!(started.elapsed() < crate::OPERATION_BUDGET);
    }
}
