//! Machine checks of the crate's architecture (`docs/internals/ARCHITECTURE.md`): the module
//! graph has no import cycle other than a directory's `mod.rs` with one of its children, and
//! the layers keep to their boundaries (`rules/` never names the session, only `ir/` names
//! `llvm_sys`, only `ir/` and the C ABI hold `unsafe` code, the analyses name no rule: callee
//! semantics come from the rules' effects).
//!
//! The graph is read from the sources, not from the compiler: every `use` declaration and
//! every path starting with `crate::`, `super::`, `self::` or a child module's name is an edge
//! from the module whose file holds it to the longest module prefix of the path. Test code is
//! left out (`#[cfg(test)]` modules, inline or in their own files, and every `tests.rs`): tests
//! may drive the whole engine.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path below the crate root (`["reverse", "plan"]`); the root is `[]`.
type ModPath = Vec<String>;

/// One source file of the crate, with test code and comments removed.
struct Source {
    module: ModPath,
    file: PathBuf,
    /// Comments and literals blanked, `#[cfg(test)]` items and `pub(in ...)` removed.
    code: String,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn module_of(rel: &Path) -> ModPath {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// `code` with comments, string and character literals replaced by spaces (newlines kept).
fn blank_comments_and_literals(code: &str) -> String {
    blank_comments(code, true)
}

/// `code` with comments replaced by spaces (newlines kept), and string and character literals
/// too when `literals`.
fn blank_comments(code: &str, literals: bool) -> String {
    let b: Vec<char> = code.chars().collect();
    let mut out = String::with_capacity(code.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let literal = |out: &mut String, c: char| {
        if literals {
            blank(out, c)
        } else {
            out.push(c)
        }
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            loop {
                if i >= b.len() {
                    break;
                }
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_'))
        {
            // A raw string r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            'raw: while j < b.len() {
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break 'raw;
                }
                j += 1;
            }
            for &ch in &b[i..j.min(b.len())] {
                literal(&mut out, ch);
            }
            i = j;
        } else if c == '"' {
            literal(&mut out, c);
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    literal(&mut out, b[i]);
                    i += 1;
                }
                if i < b.len() {
                    literal(&mut out, b[i]);
                    i += 1;
                }
            }
            if i < b.len() {
                literal(&mut out, b[i]);
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'), or a lifetime ('a), left alone.
            let end = if next == Some('\\') {
                (i + 2..b.len()).find(|&k| b[k] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(e) => {
                    for &ch in &b[i..=e] {
                        literal(&mut out, ch);
                    }
                    i = e + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The names of the modules `code` declares under `#[cfg(test)]` (`mod tests;`), and `code`
/// with every `#[cfg(test)]` item (inline modules, functions, uses) removed.
fn strip_test_items(code: &str) -> (Vec<String>, String) {
    let mut out = String::new();
    let mut test_mods = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        // The item ends at the first `;` before any `{`, or at the `}` matching that `{`.
        let semi = after.find(';');
        let brace = after.find('{');
        let end = match (semi, brace) {
            (Some(s), Some(b)) if s < b => {
                let item = after[..s].trim();
                if let Some(name) = item
                    .strip_prefix("pub(crate) mod ")
                    .or_else(|| item.strip_prefix("pub mod "))
                    .or_else(|| item.strip_prefix("mod "))
                {
                    test_mods.push(name.trim().to_string());
                }
                s + 1
            }
            (Some(s), None) => s + 1,
            (_, Some(b)) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (k, ch) in after[b..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, None) => after.len(),
        };
        rest = &after[end..];
    }
    out.push_str(rest);
    (test_mods, out)
}

/// Removes `pub(in some::path)`: a visibility names a module without depending on it.
fn strip_restricted_visibility(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("pub(in ") {
        out.push_str(&rest[..at]);
        out.push_str("pub");
        let close = rest[at..].find(')').map_or(rest.len(), |k| at + k + 1);
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Every non-test source file of the crate.
fn sources() -> Vec<Source> {
    let root = src_dir();
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("readable source directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut parsed: Vec<(ModPath, PathBuf, Vec<String>, String)> = Vec::new();
    for file in files {
        let rel = file.strip_prefix(&root).expect("below src").to_path_buf();
        if rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable source");
        let blanked = blank_comments_and_literals(&text);
        let (test_mods, code) = strip_test_items(&blanked);
        parsed.push((module_of(&rel), rel, test_mods, code));
    }
    // Modules declared under #[cfg(test)], and everything below them.
    let test_only: Vec<ModPath> = parsed
        .iter()
        .flat_map(|(m, _, tm, _)| {
            tm.iter().map(move |t| {
                let mut p = m.clone();
                p.push(t.clone());
                p
            })
        })
        .collect();
    parsed
        .into_iter()
        .filter(|(m, ..)| !test_only.iter().any(|t| m.starts_with(t)))
        .map(|(module, file, _, code)| Source {
            module,
            file,
            code: strip_restricted_visibility(&code),
        })
        .collect()
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Splits a use tree (`a::{b, c::{d, e}}`) into full paths.
fn expand_use_tree(prefix: &[String], tree: &str) -> Vec<Vec<String>> {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let mut base = prefix.to_vec();
        base.extend(head);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0, 0);
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    parts.push(&inner[start..k]);
                    start = k + 1;
                }
                _ => {}
            }
        }
        parts.push(&inner[start..]);
        return parts
            .into_iter()
            .filter(|p| !p.trim().is_empty())
            .flat_map(|p| expand_use_tree(&base, p))
            .collect();
    }
    let path = tree.split(" as ").next().unwrap_or(tree);
    let mut out = prefix.to_vec();
    out.extend(
        path.split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty() && *s != "*")
            .map(String::from),
    );
    vec![out]
}

/// The module graph: for each module, the modules it names.
fn graph(sources: &[Source]) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let modules: BTreeSet<ModPath> = sources.iter().map(|s| s.module.clone()).collect();
    let longest_module = |path: &[String]| -> Option<ModPath> {
        (1..=path.len())
            .rev()
            .map(|k| path[..k].to_vec())
            .find(|p| modules.contains(p))
    };
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for s in sources {
        let here = &s.module;
        let children: BTreeSet<&str> = modules
            .iter()
            .filter(|m| m.len() == here.len() + 1 && m.starts_with(here))
            .map(|m| m[here.len()].as_str())
            .collect();
        // Absolute form of a path relative to this module, if it names a module of the crate.
        let absolute = |segs: &[String]| -> Option<Vec<String>> {
            let first = segs.first()?;
            let mut out: Vec<String>;
            let mut rest = segs;
            match first.as_str() {
                "crate" => {
                    out = Vec::new();
                    rest = &rest[1..];
                }
                "self" => {
                    out = here.clone();
                    rest = &rest[1..];
                }
                "super" => {
                    out = here.clone();
                    while rest.first().is_some_and(|s| s == "super") {
                        out.pop();
                        rest = &rest[1..];
                    }
                }
                c if children.contains(c) => out = here.clone(),
                _ => return None,
            }
            out.extend(rest.iter().cloned());
            Some(out)
        };
        let mut targets = BTreeSet::new();
        // `use` declarations.
        let code = &s.code;
        let mut from = 0;
        while let Some(k) = code[from..].find("use ") {
            let at = from + k;
            from = at + 4;
            let before = code[..at].chars().next_back();
            if before.is_some_and(is_ident_char) {
                continue;
            }
            let Some(end) = code[at..].find(';') else {
                break;
            };
            let tree = &code[at + 4..at + end];
            for path in expand_use_tree(&[], tree) {
                if let Some(abs) = absolute(&path) {
                    targets.extend(longest_module(&abs));
                }
            }
        }
        // Paths in code: `a::b::c` where `a` is crate, self, super or a child module.
        let chars: Vec<char> = code.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if !is_ident_char(chars[i]) || (i > 0 && (is_ident_char(chars[i - 1]))) {
                i += 1;
                continue;
            }
            if i >= 2 && chars[i - 1] == ':' && chars[i - 2] == ':' {
                i += 1;
                continue;
            }
            let mut segs = Vec::new();
            let mut j = i;
            loop {
                let start = j;
                while j < chars.len() && is_ident_char(chars[j]) {
                    j += 1;
                }
                segs.push(chars[start..j].iter().collect::<String>());
                if j + 2 < chars.len()
                    && chars[j] == ':'
                    && chars[j + 1] == ':'
                    && is_ident_char(chars[j + 2])
                {
                    j += 2;
                } else {
                    break;
                }
            }
            if segs.len() > 1 {
                if let Some(abs) = absolute(&segs) {
                    targets.extend(longest_module(&abs));
                }
            }
            i = j.max(i + 1);
        }
        targets.remove(here);
        targets.remove(&Vec::new());
        edges.entry(here.clone()).or_default().extend(targets);
    }
    edges
}

/// Strongly connected components with more than one module (Tarjan's algorithm).
fn cycles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(st: &mut State<'a>, v: &'a ModPath) {
        let n = st.index.len();
        st.index.insert(v, n);
        st.low.insert(v, n);
        st.stack.push(v);
        st.on_stack.insert(v);
        if let Some(ws) = st.edges.get(v) {
            for w in ws {
                let Some((w, _)) = st.edges.get_key_value(w) else {
                    continue;
                };
                if !st.index.contains_key(w) {
                    visit(st, w);
                    let lw = st.low[w];
                    let lv = st.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if st.on_stack.contains(w) {
                    let iw = st.index[w];
                    let lv = st.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
        }
        if st.low[v] == st.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = st.stack.pop() {
                st.on_stack.remove(w);
                scc.push(w.clone());
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                st.out.push(scc);
            }
        }
    }
    let mut st = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !st.index.contains_key(v) {
            visit(&mut st, v);
        }
    }
    st.out
}

fn show(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

/// True when `a` and `b` are a module and one of its direct children.
fn parent_and_child(a: &ModPath, b: &ModPath) -> bool {
    (a.len() + 1 == b.len() && b.starts_with(a)) || (b.len() + 1 == a.len() && a.starts_with(b))
}

/// The import cycles that are not a `mod.rs` with one of its children: within each strongly
/// connected component, every edge must be one of such a pair whose reverse edge exists (then
/// every cycle is a two-cycle between a module and its child).
fn forbidden_cycles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<String> {
    let mut out = Vec::new();
    for scc in cycles(edges) {
        let members: BTreeSet<&ModPath> = scc.iter().collect();
        let mut bad = Vec::new();
        for a in &scc {
            for b in edges.get(a).into_iter().flatten() {
                if !members.contains(b) {
                    continue;
                }
                let back = edges.get(b).is_some_and(|e| e.contains(a));
                if !(parent_and_child(a, b) && back) {
                    bad.push(format!("{} -> {}", show(a), show(b)));
                }
            }
        }
        if !bad.is_empty() {
            let mut names: Vec<String> = scc.iter().map(show).collect();
            names.sort();
            out.push(format!(
                "cycle through {{{}}}; edges closing it: {}",
                names.join(", "),
                bad.join(", ")
            ));
        }
    }
    out
}

#[test]
fn no_import_cycle_but_mod_and_child() {
    let sources = sources();
    assert!(sources.len() > 50, "found the sources");
    let edges = graph(&sources);
    let cycles = forbidden_cycles(&edges);
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_cycle_check_sees_cycles() {
    let m = |s: &str| -> ModPath { s.split("::").map(String::from).collect() };
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    // rules <-> rules::calls is allowed; rules::calls -> cache -> rules is not.
    edges
        .entry(m("rules"))
        .or_default()
        .insert(m("rules::calls"));
    edges
        .entry(m("rules::calls"))
        .or_default()
        .insert(m("rules"));
    assert!(forbidden_cycles(&edges).is_empty());
    edges
        .entry(m("rules::calls"))
        .or_default()
        .insert(m("cache"));
    edges.entry(m("cache")).or_default().insert(m("rules"));
    assert_eq!(forbidden_cycles(&edges).len(), 1);
    // The parser sees `use` trees, inline paths, and skips test code and comments.
    let src = Source {
        module: m("rules::calls"),
        file: PathBuf::from("rules/calls.rs"),
        code: strip_test_items(&blank_comments_and_literals(
            "use crate::{ir::Val, cache::{Session as S}};\n// crate::derive::x\nfn f() { let s = \"crate::forward::y\"; crate::reverse::z(); }\n#[cfg(test)]\nmod tests { use crate::api::x; }\n",
        ))
        .1,
    };
    let others = ["ir", "cache", "derive", "forward", "reverse", "api"].map(|n| Source {
        module: m(n),
        file: PathBuf::from(format!("{n}.rs")),
        code: String::new(),
    });
    let mut all = vec![src];
    all.extend(others);
    let g = graph(&all);
    let got: Vec<String> = g[&m("rules::calls")].iter().map(show).collect();
    assert_eq!(got, ["cache", "ir", "reverse"]);
}

/// The files of `dir` (a directory below `src/`), test code left out.
fn files_under<'a>(sources: &'a [Source], dir: &str) -> impl Iterator<Item = &'a Source> {
    let dir = dir.to_string();
    sources
        .iter()
        .filter(move |s| s.module.first().is_some_and(|d| *d == dir))
}

fn names_word(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(k, _)| {
        let before = code[..k].chars().next_back();
        let after = code[k + word.len()..].chars().next();
        !before.is_some_and(is_ident_char) && !after.is_some_and(is_ident_char)
    })
}

#[test]
fn rules_never_name_the_engine() {
    let sources = sources();
    let edges = graph(&sources);
    let engine = [
        "cache", "derive", "forward", "reverse", "clone", "devirt", "batch", "api",
    ];
    for s in files_under(&sources, "rules") {
        assert!(
            !names_word(&s.code, "Session"),
            "{} names Session: rules see the engine through RuleEnv",
            s.file.display()
        );
        for t in edges.get(&s.module).into_iter().flatten() {
            assert!(
                !engine.contains(&t[0].as_str()),
                "{} depends on {}: rules/ sits below the engine",
                s.file.display(),
                show(t)
            );
        }
    }
}

#[test]
fn only_ir_touches_llvm_sys() {
    for s in sources() {
        if s.module.first().is_some_and(|d| d == "ir") {
            continue;
        }
        assert!(
            !names_word(&s.code, "llvm_sys"),
            "{} names llvm_sys: raw LLVM calls belong in ir/",
            s.file.display()
        );
        let unsafe_allowed = s.module == ["capi"];
        assert!(
            unsafe_allowed || !names_word(&s.code, "unsafe"),
            "{} holds unsafe code: only ir/ (and the C ABI, capi.rs) may",
            s.file.display()
        );
    }
}

/// The string literals of `text` (escapes left as written), up to its first test item.
fn string_literals(text: &str) -> Vec<String> {
    let text = &text[..text.find("#[cfg(test)]").unwrap_or(text.len())];
    let t: Vec<char> = blank_comments(text, false).chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        match t[i] {
            // A character literal ('"' included) or a lifetime.
            '\'' if t.get(i + 1) == Some(&'\\') => i += 4,
            '\'' if t.get(i + 2) == Some(&'\'') => i += 3,
            '"' => {
                let mut j = i + 1;
                while j < t.len() && t[j] != '"' {
                    j += if t[j] == '\\' { 2 } else { 1 };
                }
                out.push(t[i + 1..j.min(t.len())].iter().collect());
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Callee semantics come from the rules' effects alone: no analysis (nor reverse mode's
/// pass deleting unread primal code) spells a name a rule matches, or a prefix of one.
#[test]
fn analyses_name_no_rule() {
    let names: Vec<String> = crate::rules::all().flat_map(|r| r.names()).collect();
    let root = src_dir();
    let mut files: Vec<PathBuf> = sources()
        .into_iter()
        .filter(|s| s.module.first().is_some_and(|d| d == "analysis"))
        .map(|s| s.file)
        .collect();
    files.push(PathBuf::from("reverse/unread_primal.rs"));
    assert!(files.len() > 20, "found the analyses");
    for file in files {
        let text = std::fs::read_to_string(root.join(&file)).expect("readable source");
        for lit in string_literals(&text) {
            let named = names.iter().find(|n| {
                **n == lit
                    || (lit.starts_with("llvm.") && n.starts_with(&lit))
                    || n.strip_prefix(&lit)
                        .is_some_and(|rest| rest.starts_with('.'))
                    || lit
                        .strip_prefix(n.as_str())
                        .is_some_and(|r| r.starts_with('.'))
            });
            assert!(
                named.is_none(),
                "{} names the rule '{}' (\"{lit}\"): callee semantics belong in the rule's Effects",
                file.display(),
                named.map_or("", |n| n.as_str())
            );
        }
    }
}

#[test]
fn the_rule_name_check_sees_names() {
    let lits = string_literals(
        "let a = \"llvm.lifetime.\"; // \"not this\"\nlet b = 'x'; let c = \"x\\\"y\";\n#[cfg(test)]\nmod tests { \"free\" }",
    );
    assert_eq!(lits, ["llvm.lifetime.", "x\\\"y"]);
}

/// A rule's `Area` is which file it lives in, nothing more: only the rule reference reads it
/// (its tests compare the effects with what areas used to mean).
#[test]
fn only_the_reference_reads_areas() {
    for s in sources() {
        if s.module == ["rules", "reference"] {
            continue;
        }
        let reads = s.code.match_indices(".area").any(|(k, _)| {
            !s.code[k + ".area".len()..]
                .chars()
                .next()
                .is_some_and(is_ident_char)
        });
        assert!(
            !reads,
            "{} reads a rule's area: callee semantics belong in the rule's Effects",
            s.file.display()
        );
    }
}
