//! Title/abstract screening that learns from the researcher's labels:
//! records become TF-IDF vectors ([`features`]), a linear classifier is
//! trained on the labels so far ([`learner`]), and what is still unlabelled
//! is ordered most-likely-included first ([`ranking`]), again after every
//! label. [`metrics`] measures an order the way screening simulations do.
//! Text in, order out: nothing here reads a workspace or a file.

pub mod features;
pub mod learner;
pub mod metrics;
pub mod ranking;
pub mod stopping;

pub use ranking::Ranker;
