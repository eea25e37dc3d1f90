//! Devices: the host backend, or one GPU of the backend this crate was compiled for.

use super::buffer::Buffer;
use super::stream::Stream;
use crate::element::Scalar;
use crate::error::{Error, Result};
use std::fmt;
use std::sync::Arc;

/// Which implementation runs the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Multi-threaded CPU code with f32 accumulation; always available.
    Host,
    /// AMD GPUs through HIP (hipcc); matrix cores via MFMA.
    Rocm,
    /// NVIDIA GPUs through CUDA (nvcc on the HIP sources); tensor cores via WMMA.
    Cuda,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Host => "host",
            Backend::Rocm => "rocm",
            Backend::Cuda => "cuda",
        })
    }
}

/// Where a buffer, stream or operation lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DeviceId {
    Host,
    Gpu(u32),
}

impl fmt::Display for DeviceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceId::Host => f.write_str("host"),
            DeviceId::Gpu(ordinal) => write!(f, "gpu:{ordinal}"),
        }
    }
}

/// What the runtime reports about a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceProperties {
    pub name: String,
    pub backend: Backend,
    /// `gfx90a…` on AMD, `sm_90` on NVIDIA, `cpu` on the host.
    pub arch: String,
    pub total_memory_bytes: u64,
    /// Multiprocessors / compute units; worker threads on the host.
    pub compute_units: u32,
    /// Threads per wave (64 on AMD CDNA) or warp (32 on NVIDIA); 1 on the host.
    pub wave_size: u32,
    /// Last-level GPU cache; 0 on the host.
    pub l2_cache_bytes: u64,
}

/// A device to run on. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Device {
    id: DeviceId,
    properties: Arc<DeviceProperties>,
}

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Device {
    /// The host backend.
    pub fn host() -> Device {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
        let properties = DeviceProperties {
            name: String::from("host CPU"),
            backend: Backend::Host,
            arch: String::from("cpu"),
            total_memory_bytes: 0,
            compute_units: threads,
            wave_size: 1,
            l2_cache_bytes: 0,
        };
        Device { id: DeviceId::Host, properties: Arc::new(properties) }
    }

    /// GPU `ordinal` of the compiled backend; [`Error::NoGpu`] when there is none.
    pub fn gpu(ordinal: u32) -> Result<Device> {
        #[cfg(hipconv_gpu)]
        {
            let count = super::result::device_count()?;
            if ordinal >= count {
                return Err(Error::NoGpu {
                    reason: format!("GPU {ordinal} was asked for, the runtime reports {count} device(s)"),
                });
            }
            let info = super::result::device_info(ordinal)?;
            let backend = if cfg!(hipconv_rocm) { Backend::Rocm } else { Backend::Cuda };
            let properties = DeviceProperties {
                name: super::result::char_array_to_string(&info.name),
                backend,
                arch: super::result::char_array_to_string(&info.arch),
                total_memory_bytes: info.total_memory_bytes.max(0) as u64,
                compute_units: info.multiprocessors.max(0) as u32,
                wave_size: info.warp_size.max(0) as u32,
                l2_cache_bytes: info.l2_cache_bytes.max(0) as u64,
            };
            Ok(Device { id: DeviceId::Gpu(ordinal), properties: Arc::new(properties) })
        }
        #[cfg(not(hipconv_gpu))]
        {
            let _ = ordinal;
            Err(Error::NoGpu {
                reason: String::from(
                    "hipconv was built without a GPU backend (no hipcc or nvcc found, or HIPCONV_GPU=none)",
                ),
            })
        }
    }

    /// The GPU backend compiled into this build, if any.
    pub fn compiled_gpu_backend() -> Option<Backend> {
        if cfg!(hipconv_rocm) {
            Some(Backend::Rocm)
        } else if cfg!(hipconv_cuda) {
            Some(Backend::Cuda)
        } else {
            None
        }
    }

    /// GPU 0 when one is usable, else the host backend. Callers that need a GPU use
    /// [`Device::gpu`], which fails instead of falling back.
    pub fn best_available() -> Device {
        Device::gpu(0).unwrap_or_else(|_| Device::host())
    }

    pub fn id(&self) -> DeviceId {
        self.id
    }

    pub fn properties(&self) -> &DeviceProperties {
        &self.properties
    }

    pub fn backend(&self) -> Backend {
        self.properties.backend
    }

    pub fn is_gpu(&self) -> bool {
        matches!(self.id, DeviceId::Gpu(_))
    }

    /// Makes this device current for the calling thread (no-op on the host).
    pub(crate) fn activate(&self) -> Result<()> {
        match self.id {
            DeviceId::Host => Ok(()),
            #[cfg(hipconv_gpu)]
            DeviceId::Gpu(ordinal) => super::result::set_device(ordinal),
            #[cfg(not(hipconv_gpu))]
            DeviceId::Gpu(_) => unreachable!("no GPU device can exist without a GPU backend"),
        }
    }

    /// A new stream on this device.
    pub fn stream(&self) -> Result<Stream> {
        Stream::new(self)
    }

    /// A buffer of `len` elements on this device; its contents are unspecified.
    pub fn alloc<T: Scalar>(&self, len: usize) -> Result<Buffer<T>> {
        Buffer::alloc(self, len)
    }

    /// A buffer holding a copy of `data`; returns once the copy is complete.
    pub fn upload<T: Scalar>(&self, stream: &Stream, data: &[T]) -> Result<Buffer<T>> {
        let mut buffer = Buffer::alloc(self, data.len())?;
        buffer.copy_from_host(stream, data)?;
        Ok(buffer)
    }
}
