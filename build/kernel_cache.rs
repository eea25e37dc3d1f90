//! A cache of compiled kernel archives that every profile of one target directory shares.
//!
//! `cargo clippy`, `cargo build`, `cargo build --release` and `cargo test` each run this
//! build script in their own folder, and each would compile every kernel again: on a
//! 2-core machine that is 10–20 minutes per run and backend. The device code does not depend
//! on the profile (build.rs compiles it optimised and without debug info in every profile),
//! so the archive one of them compiled is the archive the others would compile.
//!
//! An archive is keyed by everything that decides its contents: the compiler's path, its
//! `--version`, the full argument list cc derives (flags, defines, include folders, CXXFLAGS
//! from the environment), and the path and bytes of every file under `hip/`. A changed
//! source, flag, target list or toolchain gives a new key; the cache keeps the most recently
//! used few archives of a target directory and removes the rest.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// Archives kept per target directory (an archive is tens of MB).
const KEPT_ARCHIVES: usize = 4;

/// Compiles `build` into `lib<name>.a` in OUT_DIR and links it, or copies the archive an
/// earlier run with the same key left in the cache and links that. `inputs` are the files
/// the archive depends on (every source and header).
pub fn compile_cached(build: &cc::Build, name: &str, inputs: &[PathBuf]) {
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let archive = out_dir.join(format!("lib{name}.a"));
    let Some(cache_dir) = cache_dir(&out_dir) else {
        build.compile(name);
        return;
    };
    let key = cache_key(build, inputs);
    let cached = cache_dir.join(format!("lib{name}-{key:016x}.a"));
    if cached.is_file() && fs::copy(&cached, &archive).is_ok() {
        touch(&cached);
        cc::emit_link_directives(build, &archive);
        return;
    }
    build.compile(name);
    // A source edited while it compiled: the archive may hold either version, so it is not
    // stored under either key.
    if cache_key(build, inputs) == key {
        store(&archive, &cached);
        prune(&cache_dir, name);
    }
}

/// `<target dir>/hipconv-kernel-cache`, where OUT_DIR is
/// `<target dir>/<profile>/build/<package>-<hash>/out`; None for any other shape.
fn cache_dir(out_dir: &Path) -> Option<PathBuf> {
    let build_dir = out_dir.ancestors().nth(2)?;
    if build_dir.file_name()? != "build" {
        return None;
    }
    Some(build_dir.parent()?.parent()?.join("hipconv-kernel-cache"))
}

fn cache_key(build: &cc::Build, inputs: &[PathBuf]) -> u64 {
    let mut hasher = DefaultHasher::new();
    let compiler = build.get_compiler();
    compiler.path().hash(&mut hasher);
    compiler.args().hash(&mut hasher);
    let version = Command::new(compiler.path()).arg("--version").output();
    version.map(|out| out.stdout).unwrap_or_default().hash(&mut hasher);
    for input in inputs {
        input.hash(&mut hasher);
        fs::read(input).unwrap_or_else(|err| panic!("read {}: {err}", input.display())).hash(&mut hasher);
    }
    hasher.finish()
}

/// Copies the fresh archive into the cache under a temporary name and renames it, so that a
/// build script running beside this one never reads half an archive. A cache that cannot be
/// written costs the next run a compile, nothing else.
fn store(archive: &Path, cached: &Path) {
    let Some(dir) = cached.parent() else { return };
    let partial = cached.with_extension(format!("partial-{}", std::process::id()));
    let stored =
        fs::create_dir_all(dir).and_then(|()| fs::copy(archive, &partial)).and_then(|_| fs::rename(&partial, cached));
    if stored.is_err() {
        let _ = fs::remove_file(&partial);
    }
}

fn touch(path: &Path) {
    if let Ok(file) = fs::File::options().append(true).open(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// Removes all but the `KEPT_ARCHIVES` most recently used archives named `lib<name>-*.a`.
fn prune(cache_dir: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(cache_dir) else { return };
    let prefix = format!("lib{name}-");
    let mut archives: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            file_name.starts_with(&prefix) && file_name.ends_with(".a")
        })
        .filter_map(|path| Some((fs::metadata(&path).ok()?.modified().ok()?, path)))
        .collect();
    archives.sort_by_key(|(used, _)| std::cmp::Reverse(*used));
    for (_, stale) in archives.into_iter().skip(KEPT_ARCHIVES) {
        let _ = fs::remove_file(stale);
    }
}
