//! Compiles the HIP kernels for one GPU backend and generates their Rust bindings.
//!
//! Backend: `HIPCONV_GPU=rocm|cuda|none`, else the first compiler found: hipcc (HIP-first),
//! then nvcc, else none (host backend only). AMD targets come from `HIPCONV_AMD_ARCHS`,
//! NVIDIA targets from `HIPCONV_CUDA_ARCHS` (both `;`- or `,`-separated).
//! The NVIDIA build runs nvcc on the same HIP sources with `hip/common/compat.h`
//! (docs/BACKENDS.md says why) and links cudart statically. The sources are every `*.hip`
//! file under `hip/`; bindgen reads the umbrella header `hip/include/hipconv.h`.

use std::env;
use std::path::{Path, PathBuf};

#[path = "build/kernel_cache.rs"]
mod kernel_cache;

const SOURCE_ROOT: &str = "hip";
const INCLUDE_DIRS: &[&str] = &["hip/include", "hip/common", "hip/gemm"];
const DEFAULT_AMD_ARCHS: &str = "gfx90a;gfx940";
const DEFAULT_CUDA_ARCHS: &str = "80;90";
const ENV_VARS: &[&str] =
    &["HIPCONV_GPU", "HIPCONV_AMD_ARCHS", "HIPCONV_CUDA_ARCHS", "HIP_PATH", "ROCM_PATH", "CUDA_PATH", "PATH"];

#[derive(Clone, Copy, PartialEq)]
enum Backend {
    Rocm,
    Cuda,
    None,
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(hipconv_gpu)");
    println!("cargo::rustc-check-cfg=cfg(hipconv_rocm)");
    println!("cargo::rustc-check-cfg=cfg(hipconv_cuda)");
    for var in ENV_VARS {
        println!("cargo:rerun-if-env-changed={var}");
    }
    // Each source and header by name, and the tree itself, so that a file added anywhere
    // under it (a new family's folder) reruns this script too.
    println!("cargo:rerun-if-changed={SOURCE_ROOT}");
    let files = files_under(Path::new(SOURCE_ROOT));
    for file in files.iter().filter(|f| has_extension(f, "hip") || has_extension(f, "h")) {
        println!("cargo:rerun-if-changed={}", file.display());
    }
    let sources: Vec<&PathBuf> = files.iter().filter(|f| has_extension(f, "hip")).collect();

    let (backend, compiler) = select_backend();
    match backend {
        Backend::Rocm => build_rocm(&compiler.expect("hipcc path"), &sources, &files),
        Backend::Cuda => build_cuda(&compiler.expect("nvcc path"), &sources, &files),
        Backend::None => return,
    }
    generate_bindings();
    println!("cargo:rustc-cfg=hipconv_gpu");
}

/// Every file under `dir`, recursively, sorted (the build is the same on every machine).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries = std::fs::read_dir(dir).unwrap_or_else(|err| panic!("read {}: {err}", dir.display()));
    for entry in entries {
        let path = entry.unwrap_or_else(|err| panic!("read {}: {err}", dir.display())).path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension().is_some_and(|e| e == extension)
}

fn select_backend() -> (Backend, Option<PathBuf>) {
    let hipcc = || find_tool("hipcc", &["HIP_PATH", "ROCM_PATH"]);
    let nvcc = || find_tool("nvcc", &["CUDA_PATH"]);
    let choice = env::var("HIPCONV_GPU").unwrap_or_default().to_lowercase();
    match choice.as_str() {
        "rocm" | "hip" | "amd" => {
            let path = hipcc().unwrap_or_else(|| {
                panic!("HIPCONV_GPU={choice} but hipcc was not found in $HIP_PATH/bin, $ROCM_PATH/bin or PATH")
            });
            (Backend::Rocm, Some(path))
        }
        "cuda" | "nvidia" => {
            let path = nvcc()
                .unwrap_or_else(|| panic!("HIPCONV_GPU={choice} but nvcc was not found in $CUDA_PATH/bin or PATH"));
            (Backend::Cuda, Some(path))
        }
        "none" | "host" => (Backend::None, None),
        "" => match (hipcc(), nvcc()) {
            (Some(path), _) => (Backend::Rocm, Some(path)),
            (None, Some(path)) => (Backend::Cuda, Some(path)),
            (None, None) => (Backend::None, None),
        },
        other => panic!("HIPCONV_GPU={other}: expected rocm, cuda or none"),
    }
}

fn find_tool(name: &str, root_vars: &[&str]) -> Option<PathBuf> {
    let roots = root_vars.iter().filter_map(env::var_os).map(|root| PathBuf::from(root).join("bin"));
    let path_dirs = env::var_os("PATH").map(|p| env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    roots.chain(path_dirs).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
}

fn arch_list(var: &str, default: &str) -> Vec<String> {
    let value = env::var(var).unwrap_or_else(|_| default.to_string());
    let archs: Vec<String> =
        value.split([';', ',']).map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
    assert!(!archs.is_empty(), "{var}={value:?} names no target");
    archs
}

/// Optimised and without debug info in every profile: cc would turn a debug profile into
/// `-g` (nvcc: `-G`, device code without optimisation, whose kernels would time nothing like
/// the release ones), and one set of flags lets every profile share the kernel cache.
fn common_build(sources: &[&PathBuf]) -> cc::Build {
    let mut build = cc::Build::new();
    build.cpp(true).opt_level(3).debug(false).flag("-std=c++17").warnings(true);
    for dir in INCLUDE_DIRS {
        build.include(dir);
    }
    build.files(sources);
    build
}

/// `inputs`: every file under `hip/`, which the kernel cache keys the archive by.
fn build_rocm(hipcc: &Path, sources: &[&PathBuf], inputs: &[PathBuf]) {
    let mut build = common_build(sources);
    build.compiler(hipcc).define("HIPCONV_PLATFORM_AMD", None).flag("-x").flag("hip").flag("-fPIC");
    let archs = arch_list("HIPCONV_AMD_ARCHS", DEFAULT_AMD_ARCHS);
    for arch in &archs {
        build.flag(format!("--offload-arch={arch}"));
    }
    // cc probes the compiler without our flags; hipcc then asks rocm_agent_enumerator for a
    // target, which prints a traceback on machines without an AMD GPU. Name the targets.
    env::set_var("HCC_AMDGPU_TARGET", archs.join(","));
    // hipcc would pick the NVIDIA platform by itself where it sees CUDA_PATH.
    env::set_var("HIP_PLATFORM", "amd");
    kernel_cache::compile_cached(&build, "hipconv_kernels", inputs);
    if let Some(root) = ["HIP_PATH", "ROCM_PATH"].iter().find_map(env::var_os) {
        println!("cargo:rustc-link-search=native={}", PathBuf::from(root).join("lib").display());
    }
    println!("cargo:rustc-link-lib=dylib=amdhip64");
    println!("cargo:rustc-cfg=hipconv_rocm");
}

fn build_cuda(nvcc: &Path, sources: &[&PathBuf], inputs: &[PathBuf]) {
    // With cuda(true), cc takes nvcc from $NVCC and uses its own C++ compiler as -ccbin.
    env::set_var("NVCC", nvcc);
    let mut build = common_build(sources);
    build.cuda(true).cudart("static").define("HIPCONV_PLATFORM_NVIDIA", None).flag("-x").flag("cu");
    for arch in arch_list("HIPCONV_CUDA_ARCHS", DEFAULT_CUDA_ARCHS) {
        let sm = arch.trim_start_matches("sm_").trim_start_matches("compute_");
        if sm.trim_end_matches('a') == "90" {
            // Hopper: sm_90a machine code (wgmma: the conv3d implicit GEMM) and compute_90
            // PTX for newer GPUs, where the wgmma kernel compiles empty and is never chosen.
            build.flag("-gencode").flag("arch=compute_90a,code=sm_90a");
            build.flag("-gencode").flag("arch=compute_90,code=compute_90");
            build.define("HIPCONV_SM90A_SASS", None);
        } else {
            build.flag("-gencode").flag(format!("arch=compute_{sm},code=[sm_{sm},compute_{sm}]"));
        }
    }
    kernel_cache::compile_cached(&build, "hipconv_kernels", inputs);
    // nvcc lives in <cuda root>/bin; cudart_static in <cuda root>/lib or lib64.
    let root = nvcc.parent().and_then(Path::parent).expect("nvcc in a bin/ directory");
    for lib in ["lib", "lib64"] {
        if root.join(lib).is_dir() {
            println!("cargo:rustc-link-search=native={}", root.join(lib).display());
        }
    }
    println!("cargo:rustc-cfg=hipconv_cuda");
}

fn generate_bindings() {
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR")).join("bindings.rs");
    bindgen::Builder::default()
        .header("hip/include/hipconv.h")
        .allowlist_function("hipconv_.*")
        .allowlist_type("hipconv_.*")
        .allowlist_var("HIPCONV_.*")
        .derive_default(true)
        .generate()
        .expect("bindgen could not parse hip/include/hipconv.h (is libclang installed?)")
        .write_to_file(&out)
        .expect("write bindings.rs");
}
