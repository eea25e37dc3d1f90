//! Device architectures as the op families' `Auto` policies key them (each family's
//! heuristics.rs is the one place its measured crossovers live).

/// Device architectures with their own measured policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ArchFamily {
    /// NVIDIA sm_90 (H100, H200): where the families' crossovers were measured.
    Hopper,
    /// NVIDIA sm_80..sm_89, AMD gfx90a and gfx94x, the host, anything else: not measured
    /// here; each family's policy says what they get.
    Other,
}

impl ArchFamily {
    /// From `DeviceProperties::arch` (`sm_90`, `gfx90a:sramecc+:xnack-`, `cpu`).
    pub(crate) fn of(arch: &str) -> ArchFamily {
        if arch.starts_with("sm_90") {
            ArchFamily::Hopper
        } else {
            ArchFamily::Other
        }
    }
}
