//! A family's C entry points as the GPU launchers call them: each exported launcher
//! (`hipconv_<family>_<op>_<dtype>`, hip/common/launch.h) with its name, for the error that
//! names a failed call. Each family keeps one dtype table of them (its gpu.rs).

use super::result::check;
use super::sys;
use super::Stream;
use crate::error::Result;

/// An exported launcher: `(const params *, stream) -> status`.
pub(crate) type Launcher<P> = unsafe extern "C" fn(*const P, sys::hipconv_stream_t) -> i32;

/// One C entry point: its function and its name.
pub(crate) struct Entry<P> {
    pub(crate) launch: Launcher<P>,
    pub(crate) name: &'static str,
}

impl<P> Entry<P> {
    /// Enqueues the entry point with `params` on `stream`.
    ///
    /// # Safety
    /// `params` must satisfy the entry point's contract in its family's header under
    /// hip/include/hipconv/.
    pub(crate) unsafe fn run(&self, params: &P, stream: &Stream) -> Result<()> {
        check((self.launch)(params, stream.handle().as_raw().cast()), self.name)
    }
}

/// `Entry` of the bindgen symbol `$symbol`, named after it.
macro_rules! entry {
    ($symbol:ident) => {
        $crate::runtime::entry::Entry { launch: $crate::runtime::sys::$symbol, name: stringify!($symbol) }
    };
}
pub(crate) use entry;
