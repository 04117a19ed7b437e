//! `aesx generate`: man pages for the command and every subcommand, and
//! completion scripts that know the subcommands and options, all made from
//! the binary's own definition; clear refusals for a missing directory or
//! an unknown shell.

mod common;
use common::{aesx, one_line};

/// The subcommands every build has (the lean one included).
const SUBCOMMANDS: [&str; 9] = [
    "cavp", "bench", "cipher", "mac", "info", "encrypt", "decrypt", "keygen", "generate",
];

#[test]
fn man_pages_cover_every_subcommand_and_option() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let o = aesx(p, &["generate", "man", "-o", "."], b"");
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut names: Vec<String> = std::fs::read_dir(p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.contains(&"aesx.1".to_string()), "{names:?}");
    for s in SUBCOMMANDS {
        let page = format!("aesx-{s}.1");
        assert!(names.contains(&page), "no {page} in {names:?}");
    }
    // The encrypt page is roff that names its real options.
    let page = std::fs::read_to_string(p.join("aesx-encrypt.1")).unwrap();
    assert!(page.starts_with(".ie") || page.starts_with(".TH"), "{page}");
    for opt in [
        "\\-\\-key\\-file",
        "\\-\\-threads",
        "\\-\\-passphrase\\-file",
    ] {
        assert!(page.contains(opt), "aesx-encrypt.1 lacks {opt}");
    }
}

#[test]
fn completions_know_the_subcommands() {
    let d = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = aesx(d.path(), &["generate", "completions", shell], b"");
        assert_eq!(o.code, 0, "{shell}: {}", o.stderr);
        let text = o.stdout_str();
        for s in ["encrypt", "decrypt", "keygen", "cipher"] {
            assert!(text.contains(s), "{shell} completion lacks {s}");
        }
    }
    let bash = aesx(d.path(), &["generate", "completions", "bash"], b"").stdout_str();
    assert!(
        bash.contains("--key-file") && bash.contains("complete -F"),
        "{bash}"
    );
}

#[test]
fn bad_requests_are_one_line_errors() {
    let d = tempfile::tempdir().unwrap();
    let o = aesx(d.path(), &["generate", "man", "-o", "missing"], b"");
    one_line(&o, 2, "not a directory");
    let o = aesx(d.path(), &["generate", "completions", "tcsh"], b"");
    one_line(&o, 2, "invalid value 'tcsh'");
    let o = aesx(d.path(), &["generate"], b"");
    assert_eq!(o.code, 2);
    assert!(std::fs::read_dir(d.path()).unwrap().next().is_none());
}
