//! Analyses over verified IR whose results both engines share (side tables, never stored in
//! the IR itself).

pub mod cfg;
pub mod region;
pub mod schedule;
pub mod segment;
pub mod uniform;
