//! The model a run works with, set up once and handed to whichever runs: a
//! review, a question for the papers, a table fill, a protocol draft. Every
//! guarantee a run's calls rest on is settled here, alike for all of them:
//!
//! - the profile (named, default, or a local Ollama) and its key;
//! - a pool's endpoints, each asked what it serves: one serving another
//!   model is left out (and said), one not answering stays in and is rested
//!   by the client if it keeps failing;
//! - the context the server really serves: a profile claiming more than an
//!   Ollama or a llama.cpp slot holds is fitted to it before anything is
//!   sent, and the client judges a cut prompt by that window, not by a byte
//!   ratio another tokenizer breaks;
//! - the price, and the refusal of a cost cap that an unpriced model could
//!   never keep;
//! - the counted client: every call logged to the workspace and held
//!   against the run's caps before it is sent.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::models::{ResolvedModel, resolve_model};
use super::{AppContext, CommandError, ErrorKind};
use crate::agent::{Budget, Caps};
use crate::llm::accounting::{CallLog, PriceTable};
use crate::llm::call_file::{CallLogs, FileCallLog};
use crate::llm::served::{ServedContext, ServerKind, served_context};
use crate::llm::{Endpoints, ModelClient, ModelSettings};
use crate::workspace::Workspace;

/// A profile resolved, fitted to its server and priced.
pub struct RunModel {
    pub profile: String,
    /// The profile's settings, fitted to what the server serves.
    pub settings: ModelSettings,
    pub endpoints: Endpoints,
    pub prices: PriceTable,
    /// What the server said it holds a request, when it said.
    pub served: Option<ServedContext>,
    pub config_dir: PathBuf,
}

/// A run's client and what counts its calls; [`Counted::close`] when done.
pub struct Counted {
    pub client: Arc<ModelClient>,
    pub budget: Arc<Budget>,
    calls: Arc<FileCallLog>,
}

impl RunModel {
    /// The profile `profile` (else the default, else a local Ollama), ready
    /// for a run under `caps`.
    pub async fn prepare(
        ctx: &AppContext,
        profile: Option<&str>,
        caps: &Caps,
    ) -> Result<Self, CommandError> {
        let resolved = resolve_model(ctx.paths().config_dir.clone(), profile).await?;
        Self::from_resolved(resolved, caps).await
    }

    /// [`RunModel::prepare`] for a profile already resolved.
    pub async fn from_resolved(resolved: ResolvedModel, caps: &Caps) -> Result<Self, CommandError> {
        let key = resolved.key.as_ref().map(|k| &k.0);
        // Every key resolvable before anything is sent (a pool server's own
        // key variable unset refuses the run), and where keys go said once.
        let keys = resolved.settings.endpoint_keys(key)?;
        for notice in resolved.settings.key_exposure(&keys, key) {
            warn_once(format!("profile {}: {notice}", resolved.profile));
        }
        let mut settings = if resolved.settings.pool.is_empty() {
            resolved.settings
        } else {
            pool_serving_the_model(&resolved.profile, &resolved.settings, key).await?
        };
        let served = served_context(&settings, key).await;
        // A server holding less than the profile claims would cut or refuse
        // every long prompt: fit the profile to it before anything is sent.
        if let Some(served) = served.as_ref().filter(|s| s.is_short()) {
            warn_once(served.advice());
            settings = served.fit(&settings);
        }
        let prices = PriceTable::load(&resolved.config_dir)?;
        refuse_unkeepable_cost_cap(caps, &settings.model, &prices, &resolved.config_dir)?;
        let endpoints = Endpoints::connect(&settings, key)?;
        Ok(Self {
            profile: resolved.profile,
            settings,
            endpoints,
            prices,
            served,
            config_dir: resolved.config_dir,
        })
    }

    /// What the server said it holds a request, in tokens.
    pub fn served_window(&self) -> Option<(ServerKind, u32)> {
        self.served.as_ref().map(|s| (s.server, s.served))
    }

    /// A client whose calls go to `log` (and to nothing else).
    pub fn client(&self, log: Option<Arc<dyn CallLog>>) -> ModelClient {
        let client = ModelClient::new(
            self.profile.clone(),
            self.endpoints.clone(),
            self.prices.clone(),
        )
        .with_served_window(self.served_window());
        match log {
            Some(log) => client.with_log(log),
            None => client,
        }
    }

    /// The client for work in `ws`: every call logged to its
    /// `model-calls.jsonl` and held against `caps` before it is sent.
    pub fn counted(&self, ws: &Workspace, caps: Caps) -> Counted {
        let budget = Arc::new(Budget::new(caps));
        let calls = FileCallLog::start(ws.clone());
        let logs: Vec<Arc<dyn CallLog>> = vec![calls.clone(), budget.clone()];
        let client = self
            .client(Some(Arc::new(CallLogs(logs))))
            .with_caps(budget.clone());
        Counted {
            client: Arc::new(client),
            budget,
            calls,
        }
    }
}

impl Counted {
    /// Every call's record on disk, and the log's hold on the workspace let go.
    pub async fn close(self) -> Result<(), CommandError> {
        let calls = self.calls;
        crate::blocking::blocking(move || {
            calls.close();
            Ok::<_, CommandError>(())
        })
        .await
    }
}

/// A dollar cap on a model with no price could never be reached: the run
/// would spend without limit. Refused, unless a token cap bounds it anyway.
pub fn refuse_unkeepable_cost_cap(
    caps: &Caps,
    model: &str,
    prices: &PriceTable,
    config_dir: &Path,
) -> Result<(), CommandError> {
    if caps.max_cost_usd.is_some() && caps.max_tokens.is_none() && prices.price(model).is_none() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "unpriced_model",
            format!(
                "a cost cap cannot be kept for {model}: it has no price in the price table. Add its price to prices.toml in {}, or give a token cap (--max-tokens) as well",
                config_dir.display()
            ),
        ));
    }
    Ok(())
}

/// Log `advice` once per process: one review sets its model up for the
/// protocol draft, the estimate and the run, and the same server's advice
/// three times over reads like three problems.
/// `settings` over the endpoints of its pool that serve its model or did
/// not answer; the others are said and left out. None left is an error
/// naming what each one serves.
async fn pool_serving_the_model(
    profile: &str,
    settings: &ModelSettings,
    key: Option<&crate::llm::secrets::ApiKey>,
) -> Result<ModelSettings, CommandError> {
    let checks = crate::llm::discovery::check_endpoints(settings, key).await;
    let label = crate::llm::endpoint_label;
    let wrong: Vec<_> = checks
        .iter()
        .filter(|(c, _)| c.reached && !c.serves)
        .map(|(c, _)| c.clone())
        .collect();
    for (check, _) in &checks {
        match (&check.problem, check.reached) {
            (Some(problem), true) => warn_once(format!(
                "profile {profile}: {} is left out of the pool: it {problem}",
                check.endpoint
            )),
            (Some(problem), false) => warn_once(format!(
                "profile {profile}: {} did not answer ({problem}); it stays in the pool and is rested while it fails",
                check.endpoint
            )),
            (None, _) => {}
        }
    }
    settings
        .keep_endpoints(|url| !wrong.iter().any(|c| c.endpoint == label(url)))
        .ok_or_else(|| {
            let each: Vec<String> = wrong
                .iter()
                .map(|c| format!("{} {}", c.endpoint, c.problem.as_deref().unwrap_or("")))
                .collect();
            CommandError::new(
                ErrorKind::ModelSetup,
                "pool_serves_other_model",
                format!(
                    "no endpoint of profile {profile} serves {}: {}",
                    settings.model,
                    each.join("; ")
                ),
            )
        })
}

fn warn_once(advice: String) {
    static SAID: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if said.insert(advice.clone()) {
        tracing::warn!("{advice}");
    }
}
