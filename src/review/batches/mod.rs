//! A run's calls sent through a Batch API and kept across kills: which
//! shards were written, uploaded and created ([`ledger`]), and the driver
//! that submits them, finds them again after a restart before submitting
//! anything, follows them, keeps their results and sends failed or expired
//! requests once more, a few times at most ([`driver`]); and work's first
//! calls answered ahead through them ([`ahead`]).

pub mod ahead;
pub mod driver;
pub mod ledger;

pub use ahead::BatchMode;
pub use driver::{BatchDriver, Progress, Settled};
pub use ledger::{Ledger, Step};
