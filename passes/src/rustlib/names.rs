//! Which crate a Rust symbol belongs to, read from its mangled name: the root of the path in
//! a v0 name (`_RNvMs4_NtCslNYArtu3iFV_5alloc7raw_vec...` is `alloc`'s), or the first
//! component of a legacy one (`_ZN5alloc7raw_vec...`). Only the shapes rustc gives functions
//! are read; anything else is no crate (`None`), never a guess.

/// The crate whose item the mangled name `sym` names, if `sym` is a Rust symbol.
pub fn root_crate(sym: &str) -> Option<&str> {
    if let Some(rest) = sym.strip_prefix("_R") {
        return v0_root(rest);
    }
    let rest = sym.strip_prefix("_ZN")?;
    ident(rest).map(|(name, _)| name)
}

/// Follows the first path of a v0 name down to its crate root (`C [s<base62>_] <ident>`).
fn v0_root(mut s: &str) -> Option<&str> {
    // An instantiating crate's decimal prefix (`_R0...`) is an encoding version; none exists.
    loop {
        let c = s.as_bytes().first()?;
        s = match c {
            // Nested path: a namespace letter, then the parent path.
            b'N' => s.get(2..)?,
            // Inherent or trait impl: an optional disambiguator, then the impl's own path.
            b'M' | b'X' => disambiguator(&s[1..])?,
            // Generic arguments follow the path they apply to.
            b'I' => &s[1..],
            b'C' => return ident(disambiguator(&s[1..])?).map(|(name, _)| name),
            _ => return None,
        };
    }
}

/// Skips an optional `s<base62>_` disambiguator.
fn disambiguator(s: &str) -> Option<&str> {
    match s.strip_prefix('s') {
        Some(rest) => {
            let end = rest.find('_')?;
            rest[..end]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric())
                .then(|| &rest[end + 1..])
        }
        None => Some(s),
    }
}

/// A `<decimal length>[_]<bytes>` identifier (v0 puts `_` before one starting with a digit or
/// `_`; legacy names never do), and what follows it.
fn ident(s: &str) -> Option<(&str, &str)> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = s[..digits].parse().ok()?;
    let mut rest = &s[digits..];
    if rest.starts_with('_') && rest.len() > len && !rest[1..].starts_with(char::is_alphabetic) {
        rest = &rest[1..];
    }
    let name = rest.get(..len)?;
    Some((name, &rest[len..]))
}

#[cfg(test)]
mod tests {
    use super::root_crate;

    #[test]
    fn v0_inherent_method_of_alloc() {
        let s = "_RNvMs4_NtCslNYArtu3iFV_5alloc7raw_vecNtB5_11RawVecInner14grow_amortizedCsduwmD7cSIQq_5gimli";
        assert_eq!(root_crate(s), Some("alloc"));
    }

    #[test]
    fn v0_generic_nested_in_alloc() {
        let s = "_RINvNvMs2_NtCslNYArtu3iFV_5alloc7raw_vecINtB8_11RawVecInnerpE7reserve21do_reserve_and_handleNtNtBa_5alloc6GlobalECs4X4t9plMPHF_9addr2line";
        assert_eq!(root_crate(s), Some("alloc"));
    }

    #[test]
    fn v0_core_and_shim() {
        assert_eq!(
            root_crate("_RNvNtCsgEmfK2I1SDS_4core9panicking9panic_fmt"),
            Some("core")
        );
        assert_eq!(
            root_crate("_RNvCs1234_7___rustc12___rust_alloc"),
            Some("__rustc")
        );
    }

    #[test]
    fn legacy_and_foreign() {
        assert_eq!(
            root_crate("_ZN5alloc7raw_vec11finish_grow17h0123456789abcdefE"),
            Some("alloc")
        );
        assert_eq!(root_crate("_ZN3foo3barE"), Some("foo"));
        assert_eq!(root_crate("_Z3sind"), None);
        assert_eq!(root_crate("malloc"), None);
        assert_eq!(root_crate("_RYpNtCs1_4core5Clone"), None);
    }
}
