//! Typed runtime handles. The C ABI passes streams, events and graphs as opaque pointers;
//! here each is its own type, so a stream cannot be passed where an event is expected.
//! The handles carry no ownership: `Stream`, `Event` and `Graph` own and release them.

use std::ffi::c_void;

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(transparent)]
        pub(crate) struct $name(*mut c_void);

        #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
        impl $name {
            pub(crate) fn from_raw(raw: *mut c_void) -> $name {
                $name(raw)
            }

            pub(crate) fn as_raw(self) -> *mut c_void {
                self.0
            }
        }
    };
}

handle!(
    /// `hipStream_t` / `cudaStream_t`; null is the default stream.
    StreamHandle
);
handle!(
    /// `hipEvent_t` / `cudaEvent_t`.
    EventHandle
);
handle!(
    /// `hipGraphExec_t` / `cudaGraphExec_t`: an instantiated graph.
    GraphExecHandle
);

impl StreamHandle {
    /// The host backend's stream, and the runtime's default stream.
    pub(crate) const NULL: StreamHandle = StreamHandle(std::ptr::null_mut());
}

impl GraphExecHandle {
    /// A failed capture leaves a null graph behind.
    #[cfg_attr(not(hipconv_gpu), allow(dead_code))]
    pub(crate) fn is_null(self) -> bool {
        self.0.is_null()
    }
}
