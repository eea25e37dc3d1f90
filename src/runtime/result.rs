//! The runtime's result layer: one safe or `unsafe` wrapper per call of the C ABI's runtime
//! part (`hip/include/hipconv/runtime.h`), turning its status code into a `Result` that names
//! the call, and taking typed handles ([`StreamHandle`], [`EventHandle`],
//! [`GraphExecHandle`]) instead of the ABI's opaque pointers. Compiled only when build.rs
//! built a GPU backend (`cfg(hipconv_gpu)`); the safe types in this folder sit on top.

use super::handle::{EventHandle, GraphExecHandle, StreamHandle};
use super::sys;
use crate::error::{Error, Result};
use std::ffi::{c_void, CStr};
use std::ptr;

/// Runtime error codes that mean "no usable GPU here" (same values in HIP and CUDA).
const NO_DEVICE: i32 = 100;
const INSUFFICIENT_DRIVER: i32 = 35;

pub(crate) fn backend_name() -> &'static str {
    // SAFETY: returns a pointer to a static NUL-terminated string.
    let name = unsafe { CStr::from_ptr(sys::hipconv_backend_name()) };
    name.to_str().unwrap_or("gpu")
}

fn c_string(ptr: *const std::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::from("(no message)");
    }
    // SAFETY: the runtime returns static NUL-terminated strings.
    unsafe { CStr::from_ptr(ptr) }.to_string_lossy().into_owned()
}

/// Turns a runtime status into a `Result`, naming the call that produced it.
pub(crate) fn check(status: sys::hipconv_status_t, call: &'static str) -> Result<()> {
    if status == 0 {
        return Ok(());
    }
    // SAFETY: both functions accept any status value.
    let (name, message) =
        unsafe { (c_string(sys::hipconv_error_name(status)), c_string(sys::hipconv_error_string(status))) };
    Err(Error::Runtime { backend: backend_name(), call, code: status, name, message })
}

/// Number of GPUs, or the reason there are none.
pub(crate) fn device_count() -> Result<u32> {
    let mut count = 0i32;
    // SAFETY: writes one i32.
    let status = unsafe { sys::hipconv_device_count(&mut count) };
    match status {
        0 if count > 0 => Ok(count as u32),
        0 => Err(Error::NoGpu { reason: format!("the {} runtime reports 0 devices", backend_name()) }),
        NO_DEVICE | INSUFFICIENT_DRIVER => {
            let detail = check(status, "hipGetDeviceCount").unwrap_err();
            Err(Error::NoGpu { reason: detail.to_string() })
        }
        _ => check(status, "hipGetDeviceCount").map(|_| 0),
    }
}

pub(crate) fn set_device(ordinal: u32) -> Result<()> {
    // SAFETY: plain call; an invalid ordinal is reported by the runtime.
    check(unsafe { sys::hipconv_set_device(ordinal as i32) }, "hipSetDevice")
}

pub(crate) fn device_info(ordinal: u32) -> Result<sys::hipconv_device_info> {
    let mut info = sys::hipconv_device_info::default();
    // SAFETY: writes one hipconv_device_info.
    check(unsafe { sys::hipconv_device_info_get(ordinal as i32, &mut info) }, "hipGetDeviceProperties")?;
    Ok(info)
}

pub(crate) fn char_array_to_string(chars: &[std::ffi::c_char]) -> String {
    let bytes: Vec<u8> = chars.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Allocates `bytes` on the current device.
pub(crate) fn malloc(bytes: usize) -> Result<*mut c_void> {
    let mut ptr = ptr::null_mut();
    // SAFETY: writes one pointer.
    check(unsafe { sys::hipconv_malloc(&mut ptr, bytes) }, "hipMalloc")?;
    Ok(ptr)
}

/// # Safety
/// `ptr` must come from [`malloc`] and not be used afterwards.
pub(crate) unsafe fn free(ptr: *mut c_void) -> Result<()> {
    check(sys::hipconv_free(ptr), "hipFree")
}

/// Direction of a copy.
#[derive(Clone, Copy)]
pub(crate) enum CopyKind {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
}

/// Enqueues a copy on `stream`.
///
/// # Safety
/// `dst` and `src` must be valid for `bytes` on the sides the direction names, and stay
/// valid until the copy has completed on `stream`.
pub(crate) unsafe fn memcpy_async(
    direction: CopyKind,
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    stream: StreamHandle,
) -> Result<()> {
    let stream = stream.as_raw().cast();
    let status = match direction {
        CopyKind::HostToDevice => sys::hipconv_memcpy_htod_async(dst, src, bytes, stream),
        CopyKind::DeviceToHost => sys::hipconv_memcpy_dtoh_async(dst, src, bytes, stream),
        CopyKind::DeviceToDevice => sys::hipconv_memcpy_dtod_async(dst, src, bytes, stream),
    };
    check(status, "hipMemcpyAsync")
}

/// Enqueues setting `bytes` bytes at `dst` to `byte` on `stream`.
///
/// # Safety
/// `dst` must be valid for `bytes` of device memory until the memset has completed.
pub(crate) unsafe fn memset_async(dst: *mut c_void, byte: u8, bytes: usize, stream: StreamHandle) -> Result<()> {
    check(sys::hipconv_memset_async(dst, i32::from(byte), bytes, stream.as_raw().cast()), "hipMemsetAsync")
}

pub(crate) fn stream_create() -> Result<StreamHandle> {
    let mut stream = ptr::null_mut();
    // SAFETY: writes one handle.
    check(unsafe { sys::hipconv_stream_create(&mut stream) }, "hipStreamCreateWithFlags")?;
    Ok(StreamHandle::from_raw(stream.cast()))
}

/// # Safety
/// `stream` must be a live stream handle (or null for the default stream).
pub(crate) unsafe fn stream_synchronize(stream: StreamHandle) -> Result<()> {
    check(sys::hipconv_stream_synchronize(stream.as_raw().cast()), "hipStreamSynchronize")
}

/// # Safety
/// `stream` must come from [`stream_create`] and not be used afterwards.
pub(crate) unsafe fn stream_destroy(stream: StreamHandle) -> Result<()> {
    check(sys::hipconv_stream_destroy(stream.as_raw().cast()), "hipStreamDestroy")
}

pub(crate) fn event_create() -> Result<EventHandle> {
    let mut event = ptr::null_mut();
    // SAFETY: writes one handle.
    check(unsafe { sys::hipconv_event_create(&mut event) }, "hipEventCreate")?;
    Ok(EventHandle::from_raw(event.cast()))
}

/// # Safety
/// `event` must be live; `stream` live or null.
pub(crate) unsafe fn event_record(event: EventHandle, stream: StreamHandle) -> Result<()> {
    check(sys::hipconv_event_record(event.as_raw().cast(), stream.as_raw().cast()), "hipEventRecord")
}

/// Milliseconds between two recorded events; waits for `end`.
///
/// # Safety
/// Both events must be live and recorded.
pub(crate) unsafe fn event_elapsed_ms(start: EventHandle, end: EventHandle) -> Result<f32> {
    check(sys::hipconv_event_synchronize(end.as_raw().cast()), "hipEventSynchronize")?;
    let mut ms = 0f32;
    check(sys::hipconv_event_elapsed_ms(&mut ms, start.as_raw().cast(), end.as_raw().cast()), "hipEventElapsedTime")?;
    Ok(ms)
}

/// # Safety
/// `event` must come from [`event_create`] and not be used afterwards.
pub(crate) unsafe fn event_destroy(event: EventHandle) -> Result<()> {
    check(sys::hipconv_event_destroy(event.as_raw().cast()), "hipEventDestroy")
}

/// Starts capturing the work enqueued on `stream` (thread-local capture mode).
///
/// # Safety
/// `stream` must be a live stream that is not capturing already.
pub(crate) unsafe fn stream_begin_capture(stream: StreamHandle) -> Result<()> {
    check(sys::hipconv_stream_begin_capture(stream.as_raw().cast()), "hipStreamBeginCapture")
}

/// Ends the capture begun on `stream` and instantiates it. A null handle comes back with
/// the error when the capture or the instantiation failed.
///
/// # Safety
/// `stream` must be capturing (see [`stream_begin_capture`]).
pub(crate) unsafe fn stream_end_capture(stream: StreamHandle) -> (GraphExecHandle, Result<()>) {
    let mut exec = ptr::null_mut();
    let ended = check(sys::hipconv_stream_end_capture(stream.as_raw().cast(), &mut exec), "hipStreamEndCapture");
    (GraphExecHandle::from_raw(exec.cast()), ended)
}

/// Enqueues one replay of `exec` on `stream`.
///
/// # Safety
/// `exec` must be a live instantiated graph and `stream` a live stream of its device.
pub(crate) unsafe fn graph_launch(exec: GraphExecHandle, stream: StreamHandle) -> Result<()> {
    check(sys::hipconv_graph_launch(exec.as_raw().cast(), stream.as_raw().cast()), "hipGraphLaunch")
}

/// # Safety
/// `exec` must come from [`stream_end_capture`] and not be used afterwards.
pub(crate) unsafe fn graph_exec_destroy(exec: GraphExecHandle) -> Result<()> {
    check(sys::hipconv_graph_exec_destroy(exec.as_raw().cast()), "hipGraphExecDestroy")
}
