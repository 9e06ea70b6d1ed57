//! The rule reference (docs/reference/rules.md, between its BEGIN RULES and END RULES markers) is
//! `umbra rules --markdown`, verbatim: this fails when a rule is added, removed or changed without
//! regenerating it (`make rules-doc`).

use std::process::Command;

#[test]
fn rule_reference_matches_umbra_rules() {
    let out = Command::new(env!("CARGO_BIN_EXE_umbra"))
        .args(["rules", "--markdown"])
        .output()
        .expect("run umbra rules");
    assert!(out.status.success(), "umbra rules failed");
    let table = String::from_utf8(out.stdout).expect("utf-8 output");
    let page = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/reference/rules.md");
    let text = std::fs::read_to_string(page).expect("read docs/reference/rules.md");
    let begin = text
        .find("<!-- BEGIN RULES")
        .and_then(|b| text[b..].find('\n').map(|n| b + n + 1))
        .expect("docs/reference/rules.md has a BEGIN RULES marker");
    let end = text
        .find("<!-- END RULES -->")
        .expect("docs/reference/rules.md has an END RULES marker");
    assert!(
        text[begin..end] == table,
        "docs/reference/rules.md's rule reference is out of date: run `make rules-doc`"
    );
}

#[test]
fn plain_listing_counts_the_rules() {
    let out = Command::new(env!("CARGO_BIN_EXE_umbra"))
        .arg("rules")
        .output()
        .expect("run umbra rules");
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default();
    let n: usize = first
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(n >= 120, "expected at least 120 rules, got '{first}'");
    assert_eq!(text.lines().count(), n + 1, "one line per rule");
}
