//! conv1d's bench: the forward table (forward.rs), the state-operation table (states.rs)
//! and the Im2colGemm stage times at the seed's shape, under the JSON keys "rows",
//! "state_rows" and "seed_im2col_stages_us".

mod forward;
mod states;

use crate::report::Report;
use crate::Bench;

/// Measures conv1d's tables one after another, handing each to `report` when it is done.
pub fn tables(bench: &Bench, report: &mut Report) -> hipconv::Result<()> {
    report.table(&forward::table(bench)?);
    report.table(&states::table(bench)?);
    report.single("seed_im2col_stages_us", &forward::im2col_stages(bench)?);
    Ok(())
}
