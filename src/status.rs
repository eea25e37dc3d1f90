//! The device status word, for any op family whose kernels check index arguments that live
//! on the device: a kernel that meets a bad index skips the rows it belongs to and keeps
//! the first error in `int32[STATUS_WORDS] = {code, position, value, 0}` (code 0: none;
//! `HIPCONV_STATUS_*` in hip/include/hipconv/runtime.h). The family gives the codes their
//! meaning; this module owns the word and reads it back.

use crate::error::Result;
use crate::runtime::{Buffer, Device, Stream};

/// int32 words of the status: {code, position, value, 0}.
pub(crate) const STATUS_WORDS: usize = 4;

/// The first error a kernel reported: its code, the index's position and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StatusReport {
    pub(crate) code: i32,
    pub(crate) position: usize,
    pub(crate) value: i64,
}

/// The status word of one operation object on a GPU (nothing on the host backend, whose
/// checks run before the call returns).
#[derive(Debug)]
pub(crate) struct DeviceStatus {
    word: Option<Buffer<i32>>,
}

impl DeviceStatus {
    /// A cleared word on `device` if it is a GPU (waits for the clearing copy).
    pub(crate) fn new(device: &Device) -> Result<DeviceStatus> {
        if !device.is_gpu() {
            return Ok(DeviceStatus { word: None });
        }
        let stream = device.stream()?;
        Ok(DeviceStatus { word: Some(device.upload(&stream, &[0i32; STATUS_WORDS])?) })
    }

    /// The device pointer the kernels report into; null on the host backend.
    pub(crate) fn as_raw_mut(&mut self) -> *mut i32 {
        self.word.as_mut().map_or(std::ptr::null_mut(), |w| w.as_raw_mut().cast())
    }

    /// Waits for `stream` (and the work before it), then returns the first error the kernels
    /// reported since the last call, clearing the word.
    pub(crate) fn wait_and_take(&mut self, stream: &Stream) -> Result<Option<StatusReport>> {
        let Some(word) = &mut self.word else {
            stream.synchronize()?;
            return Ok(None);
        };
        let words = word.to_vec(stream)?;
        if words[0] == 0 {
            return Ok(None);
        }
        word.zero(stream)?;
        stream.synchronize()?;
        Ok(Some(StatusReport { code: words[0], position: words[1].max(0) as usize, value: i64::from(words[2]) }))
    }
}
