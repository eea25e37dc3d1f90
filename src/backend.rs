//! Backend dispatch for every op family: an operation's launch layer runs its host code on
//! the host backend and its GPU launch on a GPU, with the stream's device made current.

use crate::element::Scalar;
use crate::runtime::Buffer;

/// On the host backend evaluates `$host` and returns `Ok(())`; on a GPU makes the stream's
/// device current and evaluates `$gpu` (a `Result`), which is compiled only when a GPU
/// backend is.
macro_rules! on_backend {
    ($stream:expr, host: $host:expr, gpu: $gpu:expr) => {{
        if !$stream.device().is_gpu() {
            $host;
            return Ok(());
        }
        #[cfg(hipconv_gpu)]
        {
            $stream.device().activate()?;
            $gpu
        }
        #[cfg(not(hipconv_gpu))]
        unreachable!("no GPU buffer can exist without a GPU backend")
    }};
}
pub(crate) use on_backend;

/// A host buffer's data. Callers have checked that the buffer lives on the host (a GPU
/// buffer here is a bug in the caller's checks, and panics).
pub(crate) fn host_data<T: Scalar>(buffer: &Buffer<T>) -> &[T] {
    buffer.host_slice().expect("checked before: buffer on the host")
}

/// The mutable counterpart of [`host_data`].
pub(crate) fn host_data_mut<T: Scalar>(buffer: &mut Buffer<T>) -> &mut [T] {
    buffer.host_slice_mut().expect("checked before: buffer on the host")
}
