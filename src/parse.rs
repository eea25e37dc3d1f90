//! Parsing the option enums of every op family from the names their `Display` prints.

use std::fmt;

/// The one of `all` whose `Display` name is `name`; the error lists the names.
pub(crate) fn by_name<T: fmt::Display + Copy>(name: &str, kind: &str, all: &[T]) -> Result<T, String> {
    all.iter().copied().find(|v| v.to_string() == name).ok_or_else(|| {
        let names: Vec<String> = all.iter().map(T::to_string).collect();
        format!("unknown {kind} {name:?}: expected one of {}", names.join(", "))
    })
}
