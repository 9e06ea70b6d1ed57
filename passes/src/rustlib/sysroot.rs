//! Where the Rust toolchain's libraries are, and which archive member defines a symbol.
//!
//! The sysroot comes from the `rust-sysroot` option, else `RUST_SYSROOT`, else
//! `$RUSTC --print sysroot` (`rustc` when `RUSTC` is unset). Its
//! `lib/rustlib/<target>/lib/*.rlib` are `ar` archives whose GNU symbol table (the `/` member)
//! maps every symbol a member defines to that member; rustc writes one for each rlib. Reading
//! only the symbol tables keeps the index cheap (std's rlibs hold tens of megabytes of code).

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Where one symbol is defined: an archive and the offset of its member's header.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Member {
    /// The rlib.
    pub archive: PathBuf,
    /// Byte offset of the member's 60-byte header in the archive.
    pub offset: u64,
}

/// Symbol → defining member, over every rlib of one library directory.
pub type Index = HashMap<String, Member>;

/// The sysroot and how it was found (for messages), or why none was.
pub fn find(option: Option<&str>) -> Result<(PathBuf, String), String> {
    if let Some(dir) = option {
        return Ok((PathBuf::from(dir), format!("--rust-sysroot={dir}")));
    }
    if let Some(dir) = std::env::var_os("RUST_SYSROOT") {
        let shown = format!("RUST_SYSROOT={}", dir.to_string_lossy());
        return Ok((PathBuf::from(dir), shown));
    }
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let shown = format!("`{} --print sysroot`", rustc.to_string_lossy());
    let out = std::process::Command::new(&rustc)
        .args(["--print", "sysroot"])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("{shown} could not run ({e})"))?;
    if !out.status.success() {
        return Err(format!("{shown} failed"));
    }
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok((PathBuf::from(dir), shown))
}

/// The directory of the target's rlibs: `lib/rustlib/<triple>/lib`, else the only target
/// directory there that holds an `alloc` rlib (rustc's target names and LLVM's triples differ
/// on some platforms, `aarch64-apple-darwin` against `arm64-apple-macosx`).
pub fn lib_dir(sysroot: &Path, triple: &str) -> Option<PathBuf> {
    let rustlib = sysroot.join("lib").join("rustlib");
    let exact = rustlib.join(triple).join("lib");
    if has_alloc(&exact) {
        return Some(exact);
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(&rustlib)
        .ok()?
        .filter_map(|e| Some(e.ok()?.path().join("lib")))
        .filter(|d| has_alloc(d))
        .collect();
    (found.len() == 1).then(|| found.remove(0))
}

fn has_alloc(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|rd| {
        rd.filter_map(|e| e.ok()).any(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with("liballoc-") && n.ends_with(".rlib")
        })
    })
}

/// The index of `dir`'s rlibs, built once per process and directory.
pub fn index(dir: &Path) -> Arc<Index> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<Index>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    cache
        .entry(dir.to_path_buf())
        .or_insert_with(|| Arc::new(build_index(dir)))
        .clone()
}

fn build_index(dir: &Path) -> Index {
    let mut index = Index::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return index;
    };
    let mut rlibs: Vec<PathBuf> = rd
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rlib"))
        .collect();
    // Sorted, so that a symbol two rlibs define resolves the same way on every run.
    rlibs.sort();
    for rlib in rlibs {
        // An unreadable or foreign archive contributes nothing: its symbols stay unresolved
        // and the caller's message names them.
        let Ok(table) = symbol_table(&rlib) else {
            continue;
        };
        for (sym, offset) in table {
            index.entry(sym).or_insert_with(|| Member {
                archive: rlib.clone(),
                offset,
            });
        }
    }
    index
}

/// Reads a member header at the file's position: its name field and size.
fn header(f: &mut File) -> std::io::Result<(String, u64)> {
    let mut h = [0u8; 60];
    f.read_exact(&mut h)?;
    if &h[58..60] != b"`\n" {
        return Err(bad("not an ar member header"));
    }
    let name = String::from_utf8_lossy(&h[..16]).trim_end().to_string();
    let size = std::str::from_utf8(&h[48..58])
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .ok_or_else(|| bad("bad member size"))?;
    Ok((name, size))
}

fn bad(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

/// The GNU symbol table of archive `path` (`/` with 32-bit offsets, `/SYM64/` with 64-bit):
/// each symbol with the offset of the member defining it.
fn symbol_table(path: &Path) -> std::io::Result<Vec<(String, u64)>> {
    let mut f = File::open(path)?;
    let mut magic = [0u8; 8];
    f.read_exact(&mut magic)?;
    if &magic != b"!<arch>\n" {
        return Err(bad("not an ar archive"));
    }
    let (name, size) = header(&mut f)?;
    let width = match name.as_str() {
        "/" => 4,
        "/SYM64/" => 8,
        _ => return Err(bad("no symbol table")),
    };
    let mut data = Vec::new();
    f.take(size).read_to_end(&mut data)?;
    let word = |at: usize| -> Option<u64> {
        let b = data.get(at..at + width)?;
        Some(b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    };
    let count = word(0).ok_or_else(|| bad("short symbol table"))? as usize;
    let names_at = count
        .checked_add(1)
        .and_then(|n| n.checked_mul(width))
        .filter(|&n| n <= data.len())
        .ok_or_else(|| bad("short symbol table"))?;
    let mut names = data[names_at..].split(|&b| b == 0);
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        let offset = word((k + 1) * width).ok_or_else(|| bad("short symbol table"))?;
        let sym = names.next().ok_or_else(|| bad("short symbol table"))?;
        out.push((String::from_utf8_lossy(sym).into_owned(), offset));
    }
    Ok(out)
}

/// The bytes of the member whose header is at `m.offset`.
pub fn member_bytes(m: &Member) -> std::io::Result<Vec<u8>> {
    let mut f = File::open(&m.archive)?;
    f.seek(SeekFrom::Start(m.offset))?;
    let (_, size) = header(&mut f)?;
    let mut data = Vec::new();
    f.take(size).read_to_end(&mut data)?;
    if data.len() as u64 != size {
        return Err(bad("truncated member"));
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GNU archive: the `/` symbol table naming `a` and `b` in the second member.
    fn archive() -> Vec<u8> {
        let header = |name: &str, size: usize| {
            format!("{name:<16}{:<12}{:<6}{:<6}{:<8}{size:<10}`\n", 0, 0, 0, 644).into_bytes()
        };
        let member = b"hello!".to_vec();
        let mut table = Vec::new();
        table.extend(2u32.to_be_bytes());
        let table_len = 4 + 8 + 4;
        let member_at = (8 + 60 + table_len) as u32;
        table.extend(member_at.to_be_bytes());
        table.extend(member_at.to_be_bytes());
        table.extend(b"a\0b\0");
        let mut out = b"!<arch>\n".to_vec();
        out.extend(header("/", table.len()));
        out.extend(&table);
        out.extend(header("m.o/", member.len()));
        out.extend(&member);
        out
    }

    #[test]
    fn reads_the_symbol_table_and_the_member() {
        let dir = std::env::temp_dir().join(format!("umbra-ar-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("libx.rlib");
        std::fs::write(&path, archive()).unwrap();
        let table = symbol_table(&path).unwrap();
        assert_eq!(table, vec![("a".to_string(), 84), ("b".to_string(), 84)]);
        let index = build_index(&dir);
        let m = &index["b"];
        assert_eq!(member_bytes(m).unwrap(), b"hello!");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn not_an_archive() {
        let dir = std::env::temp_dir().join(format!("umbra-ar-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("liby.rlib");
        std::fs::write(&path, b"garbage").unwrap();
        assert!(symbol_table(&path).is_err());
        assert!(build_index(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
