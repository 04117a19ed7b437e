//! The CLI's errors: every failure is an [`aesx_file::CommandError`] (the
//! type the benchmark laboratory returns too), printed as `aesx: <message>`
//! with its exit code; clap's own usage errors are cut to one line here.

/// A clap usage error as one line: its first line without clap's `error: `
/// prefix (the tips and the usage block that follow are dropped), and where
/// to look for more.
pub fn clap_one_line(e: &clap::Error) -> String {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
    ) {
        return "a subcommand is required (see aesx --help)".to_string();
    }
    // The first paragraph (a list of missing arguments is indented below
    // its heading), joined into one line.
    let text = e.render().to_string();
    let para: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let first = para.join(" ");
    let first = first.strip_prefix("error: ").unwrap_or(&first);
    let first = if first.is_empty() {
        "invalid arguments"
    } else {
        first
    };
    format!("{first} (see --help)")
}
