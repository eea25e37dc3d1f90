//! The runtime, in layers as in cudarc: `sys` (bindgen over the C ABI) → `result` (each call's
//! status as a `Result`, typed handles) → the safe types ([`Device`], [`Stream`], [`Event`],
//! [`Buffer`], [`Graph`]) that every op family uses. Knows no operation.

mod buffer;
mod device;
#[cfg(hipconv_gpu)]
pub(crate) mod entry;
mod event;
mod graph;
mod handle;
#[cfg(hipconv_gpu)]
pub(crate) mod result;
mod stream;
#[cfg(hipconv_gpu)]
pub(crate) mod sys;

pub use buffer::Buffer;
pub use device::{Backend, Device, DeviceId, DeviceProperties};
pub use event::Event;
pub use graph::Graph;
pub use stream::Stream;
