//! conv1d's bench: the forward table (forward.rs), the state-operation table (states.rs),
//! the Im2colGemm stage times at the seed's shape and the backward table (backward.rs),
//! under the JSON keys of TABLES.

mod backward;
mod forward;
mod states;

use crate::report::Report;
use crate::Bench;

/// The JSON keys of conv1d's tables, in the order they run (`--table` picks among them).
pub const TABLES: &[&str] = &["rows", "state_rows", "seed_im2col_stages_us", "backward_rows"];

/// Measures conv1d's tables (those `--table` selects) one after another, handing each to
/// `report` when it is done.
pub fn tables(bench: &Bench, report: &mut Report) -> hipconv::Result<()> {
    if bench.wants("rows") {
        report.table(&forward::table(bench)?);
    }
    if bench.wants("state_rows") {
        report.table(&states::table(bench)?);
    }
    if bench.wants("seed_im2col_stages_us") {
        report.single("seed_im2col_stages_us", &forward::im2col_stages(bench)?);
    }
    if bench.wants("backward_rows") {
        report.table(&backward::table(bench)?);
    }
    Ok(())
}
