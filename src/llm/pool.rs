//! The endpoints one profile's calls go to, and which one takes each call.
//!
//! A profile names one endpoint, or several serving the same model (replicas
//! behind no router, a Ray Serve deployment's routes). Each call leases a slot
//! at one endpoint, within that endpoint's concurrency:
//! - a call with an affinity (the paper it reads, the agent task it steps)
//!   goes where that affinity went first, so the endpoint's prompt cache
//!   holds the prefix its calls share;
//! - any other call goes to the least busy endpoint (in flight over
//!   concurrency), fewest affinities breaking a tie;
//! - an endpoint that failed [`FAILURES_BEFORE_REST`] calls in a row is
//!   rested for the profile's cooldown: its affinities move on, and a retry
//!   avoids the endpoint that just failed while another can take it.
//!
//! A pool of one is the plain case: it is never rested (the client's backoff
//! is what waits for a lone server).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::error::LlmError;
use super::provider::{HttpProvider, Provider};
use super::secrets::ApiKey;
use super::settings::ModelSettings;

/// Failures in a row that rest an endpoint of a pool.
pub const FAILURES_BEFORE_REST: u32 = 3;

/// The endpoints of one profile, each with its own provider.
#[derive(Clone)]
pub struct Endpoints(Arc<Profile>);

struct Profile {
    /// The profile's settings, its pool included.
    settings: ModelSettings,
    providers: Vec<Arc<dyn Provider>>,
}

impl Endpoints {
    /// `providers` of a profile with `profile`'s settings.
    ///
    /// # Panics
    /// When `providers` is empty: a profile always has its `base_url`.
    pub fn new(profile: ModelSettings, providers: Vec<Arc<dyn Provider>>) -> Self {
        assert!(!providers.is_empty(), "a pool has at least one endpoint");
        Self(Arc::new(Profile {
            settings: profile,
            providers,
        }))
    }

    /// One HTTP provider for each endpoint of `settings`: its `base_url`,
    /// then its pool, each with its key ([`ModelSettings::endpoint_keys`]:
    /// the profile's `key` unless a server names its own).
    pub fn connect(settings: &ModelSettings, key: Option<&ApiKey>) -> Result<Self, LlmError> {
        let keys = settings
            .endpoint_keys(key)
            .map_err(|e| LlmError::Config(e.to_string()))?;
        let providers = settings
            .endpoints()
            .into_iter()
            .zip(keys)
            .map(|(one, key)| Ok(HttpProvider::new(one, key)? as Arc<dyn Provider>))
            .collect::<Result<Vec<_>, LlmError>>()?;
        Ok(Self::new(settings.clone(), providers))
    }

    /// The profile's settings: the model and limits every endpoint shares,
    /// and the pool.
    pub fn settings(&self) -> &ModelSettings {
        &self.0.settings
    }

    pub fn providers(&self) -> &[Arc<dyn Provider>] {
        &self.0.providers
    }

    pub fn len(&self) -> usize {
        self.0.providers.len()
    }

    pub fn is_empty(&self) -> bool {
        false
    }
}

impl From<Arc<dyn Provider>> for Endpoints {
    fn from(provider: Arc<dyn Provider>) -> Self {
        Self::new(provider.settings().clone(), vec![provider])
    }
}

impl<P: Provider + 'static> From<Arc<P>> for Endpoints {
    fn from(provider: Arc<P>) -> Self {
        Self::from(provider as Arc<dyn Provider>)
    }
}

/// An endpoint's address as records and notices name it: no user or
/// password, no trailing slash.
pub fn endpoint_label(base_url: &str) -> String {
    match reqwest::Url::parse(base_url) {
        Ok(mut url) => {
            let _ = url.set_username("");
            let _ = url.set_password(None);
            url.as_str().trim_end_matches('/').to_owned()
        }
        Err(_) => base_url.trim_end_matches('/').to_owned(),
    }
}

/// A failure that says something about the endpoint rather than the request:
/// worth resting it, and worth the call going elsewhere.
pub fn is_endpoint_failure(error: &LlmError) -> bool {
    matches!(
        error,
        LlmError::Unreachable { .. }
            | LlmError::Server { .. }
            | LlmError::Timeout
            | LlmError::CutStream
            | LlmError::RateLimited { .. }
            | LlmError::Malformed(_)
    )
}

#[derive(Default)]
struct Member {
    in_flight: usize,
    failures: u32,
    resting_until: Option<Instant>,
    /// Affinities this endpoint holds.
    held: usize,
}

struct State {
    members: Vec<Member>,
    affinity: HashMap<String, usize>,
}

/// Who takes each call: slots per endpoint, affinities, rests.
pub struct Dispatcher {
    endpoints: Endpoints,
    labels: Vec<String>,
    capacity: Vec<usize>,
    cooldown: Duration,
    state: Mutex<State>,
    freed: Notify,
}

/// A slot at one endpoint, given back when dropped.
pub struct Lease<'a> {
    dispatcher: &'a Dispatcher,
    index: usize,
}

impl Lease<'_> {
    pub fn provider(&self) -> &Arc<dyn Provider> {
        &self.dispatcher.endpoints.providers()[self.index]
    }

    pub fn index(&self) -> usize {
        self.index
    }

    /// The endpoint's address, for the call's record.
    pub fn label(&self) -> &str {
        &self.dispatcher.labels[self.index]
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        let mut state = self.dispatcher.lock();
        state.members[self.index].in_flight -= 1;
        drop(state);
        self.dispatcher.freed.notify_waiters();
    }
}

/// What a lease waits for when no endpoint can take the call now.
enum Wait {
    Slot,
    RestEnds(Instant),
}

impl Dispatcher {
    pub fn new(endpoints: Endpoints) -> Self {
        let labels = endpoints
            .providers()
            .iter()
            .map(|p| endpoint_label(&p.settings().base_url))
            .collect();
        let capacity = endpoints
            .providers()
            .iter()
            .map(|p| p.settings().concurrency.max(1))
            .collect();
        let cooldown = endpoints.settings().pool_cooldown();
        let members = endpoints.providers().iter().map(|_| Member::default());
        Self {
            labels,
            capacity,
            cooldown,
            state: Mutex::new(State {
                members: members.collect(),
                affinity: HashMap::new(),
            }),
            freed: Notify::new(),
            endpoints,
        }
    }

    pub fn endpoints(&self) -> &Endpoints {
        &self.endpoints
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding the lock leaves counts that are still counts.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A slot for a call with `affinity`, avoiding endpoint `avoid` (the one
    /// the call's last attempt failed at) while another can take it. Waits
    /// while every endpoint it may use is full or rested; cancelled by
    /// dropping the future.
    pub async fn lease(&self, affinity: Option<&str>, avoid: Option<usize>) -> Lease<'_> {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before the state is read: a slot freed after the
            // read still wakes this lease.
            freed.as_mut().enable();
            let wait = match self.try_lease(affinity, avoid) {
                Ok(index) => {
                    return Lease {
                        dispatcher: self,
                        index,
                    };
                }
                Err(wait) => wait,
            };
            match wait {
                Wait::Slot => freed.await,
                Wait::RestEnds(at) => {
                    tokio::select! {
                        _ = freed => {}
                        _ = tokio::time::sleep_until(at) => {}
                    }
                }
            }
        }
    }

    fn try_lease(&self, affinity: Option<&str>, avoid: Option<usize>) -> Result<usize, Wait> {
        let now = Instant::now();
        let mut state = self.lock();
        let pooled = self.capacity.len() > 1;
        let rested = |m: &Member| pooled && m.resting_until.is_some_and(|until| until > now);
        let awake: Vec<usize> = (0..self.capacity.len())
            .filter(|&i| !rested(&state.members[i]))
            .collect();
        if awake.is_empty() {
            let soonest = state
                .members
                .iter()
                .filter_map(|m| m.resting_until)
                .min()
                .unwrap_or(now);
            return Err(Wait::RestEnds(soonest));
        }
        let usable: Vec<usize> = match avoid {
            Some(failed) if awake.len() > 1 => {
                awake.iter().copied().filter(|&i| i != failed).collect()
            }
            _ => awake,
        };
        let sticky = affinity.and_then(|key| state.affinity.get(key).copied());
        let target = match sticky.filter(|i| usable.contains(i)) {
            Some(index) => index,
            None => {
                let load = |i: usize| {
                    let m = &state.members[i];
                    // In flight over capacity, compared without division.
                    (m.in_flight * 1_000_000 / self.capacity[i], m.held, i)
                };
                // `usable` holds at least one endpoint awake.
                let Some(index) = usable.iter().copied().min_by_key(|&i| load(i)) else {
                    return Err(Wait::Slot);
                };
                if let Some(key) = affinity {
                    if let Some(old) = state.affinity.insert(key.to_owned(), index) {
                        state.members[old].held -= 1;
                    }
                    state.members[index].held += 1;
                }
                index
            }
        };
        let member = &mut state.members[target];
        if member.in_flight >= self.capacity[target] {
            return Err(Wait::Slot);
        }
        member.in_flight += 1;
        Ok(target)
    }

    /// What an attempt at endpoint `index` came to: a success clears its
    /// failures; an endpoint failure counts, and enough in a row rest it.
    pub fn report(&self, index: usize, outcome: Result<(), &LlmError>) {
        let mut state = self.lock();
        let member = &mut state.members[index];
        match outcome {
            Ok(()) => member.failures = 0,
            Err(error) if is_endpoint_failure(error) => {
                member.failures += 1;
                if self.capacity.len() > 1 && member.failures >= FAILURES_BEFORE_REST {
                    member.failures = 0;
                    member.resting_until = Some(Instant::now() + self.cooldown);
                    tracing::warn!(
                        endpoint = %self.labels[index],
                        failures = FAILURES_BEFORE_REST,
                        cooldown_secs = self.cooldown.as_secs_f64(),
                        error = %error,
                        "an endpoint of the pool failed calls in a row; resting it, its calls go to the others"
                    );
                }
            }
            // The request's own fault (too long, refused, cancelled): says
            // nothing of the endpoint.
            Err(_) => {}
        }
        drop(state);
        // A rest changes where waiting affinities may go.
        self.freed.notify_waiters();
    }

    /// Whether a failure at endpoint `index` leaves another endpoint to try.
    pub fn has_alternative(&self, index: usize) -> bool {
        let now = Instant::now();
        let state = self.lock();
        state
            .members
            .iter()
            .enumerate()
            .any(|(i, m)| i != index && m.resting_until.is_none_or(|until| until <= now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::HttpProvider;

    fn pool(concurrency: &[usize]) -> Dispatcher {
        pool_resting(concurrency, 60.0)
    }

    fn pool_resting(concurrency: &[usize], cooldown_secs: f64) -> Dispatcher {
        let providers: Vec<Arc<dyn Provider>> = concurrency
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let settings = ModelSettings {
                    base_url: format!("http://user:secret@10.0.0.{i}:8000/v1/"),
                    model: "m".into(),
                    concurrency: c,
                    pool_cooldown_secs: cooldown_secs,
                    ..ModelSettings::default()
                };
                HttpProvider::new(settings, None).unwrap() as Arc<dyn Provider>
            })
            .collect();
        let profile = providers[0].settings().clone();
        Dispatcher::new(Endpoints::new(profile, providers))
    }

    #[tokio::test]
    async fn calls_fill_the_least_busy_endpoint_within_each_concurrency() {
        let pool = pool(&[1, 2]);
        let a = pool.lease(None, None).await;
        let b = pool.lease(None, None).await;
        let c = pool.lease(None, None).await;
        let mut at: Vec<usize> = [&a, &b, &c].iter().map(|l| l.index()).collect();
        at.sort_unstable();
        assert_eq!(at, [0, 1, 1], "one at the first, two at the second");
        assert_eq!(
            a.label(),
            "http://10.0.0.0:8000/v1",
            "no password in a label"
        );
        // Full: the fourth waits until a slot is given back.
        let fourth = pool.lease(None, None);
        tokio::pin!(fourth);
        assert!(
            futures_util::FutureExt::now_or_never(fourth.as_mut()).is_none(),
            "every slot is taken"
        );
        let freed = b.index();
        drop(b);
        assert_eq!(fourth.await.index(), freed);
    }

    #[tokio::test]
    async fn a_papers_calls_stay_at_one_endpoint_and_move_when_it_rests() {
        let pool = pool(&[4, 4, 4]);
        let first = pool.lease(Some("paper-a"), None).await.index();
        let other = pool.lease(Some("paper-b"), None).await.index();
        assert_ne!(first, other, "a new paper goes to an endpoint holding none");
        for _ in 0..5 {
            assert_eq!(pool.lease(Some("paper-a"), None).await.index(), first);
        }
        let failure = LlmError::Server {
            status: 502,
            message: "bad gateway".into(),
        };
        for _ in 0..FAILURES_BEFORE_REST - 1 {
            pool.report(first, Err(&failure));
        }
        assert_eq!(
            pool.lease(Some("paper-a"), None).await.index(),
            first,
            "two failures do not rest it"
        );
        pool.report(first, Err(&failure));
        let moved = pool.lease(Some("paper-a"), None).await.index();
        assert_ne!(moved, first, "a rested endpoint's paper moves on");
        assert_eq!(
            pool.lease(Some("paper-a"), None).await.index(),
            moved,
            "and stays where it moved"
        );
        // A refused request says nothing of the endpoint.
        let refused = LlmError::BadRequest {
            status: 400,
            message: "no".into(),
        };
        for _ in 0..5 {
            pool.report(moved, Err(&refused));
        }
        assert_eq!(pool.lease(Some("paper-a"), None).await.index(), moved);
    }

    #[tokio::test]
    async fn a_retry_avoids_the_endpoint_that_failed_while_another_is_awake() {
        let pool = pool(&[2, 2]);
        let again = pool.lease(None, Some(0)).await;
        assert_eq!(again.index(), 1);
        assert!(pool.has_alternative(1));
        let lone = self::pool(&[2]);
        let failure = LlmError::Timeout;
        for _ in 0..10 {
            lone.report(0, Err(&failure));
        }
        assert_eq!(
            lone.lease(None, Some(0)).await.index(),
            0,
            "a lone endpoint is never rested"
        );
        assert!(!lone.has_alternative(0));
    }

    #[tokio::test]
    async fn when_every_endpoint_rests_a_call_waits_for_the_first_to_wake() {
        let pool = pool_resting(&[1, 1], 0.3);
        let failure = LlmError::Unreachable {
            url: "x".into(),
            message: "refused".into(),
        };
        for index in [0, 1] {
            for _ in 0..FAILURES_BEFORE_REST {
                pool.report(index, Err(&failure));
            }
        }
        let started = Instant::now();
        let lease = pool.lease(None, None).await;
        assert!(started.elapsed() >= Duration::from_millis(300));
        drop(lease);
    }
}
