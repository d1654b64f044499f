//! Who approved a change: `--approved-by`, else git's `user.email`, else `$USER`.
//!
//! git's config is read from its files rather than by running `git`: `lock` must never start a
//! process. Files are read in git's order of precedence, the last setting winning.

use std::path::{Path, PathBuf};

pub fn approver(explicit: Option<&str>) -> String {
    if let Some(who) = explicit.filter(|s| !s.trim().is_empty()) {
        return who.trim().to_string();
    }
    for var in ["GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"] {
        if let Some(email) = std::env::var(var).ok().filter(|s| !s.trim().is_empty()) {
            return email.trim().to_string();
        }
    }
    // Highest precedence first: the first file that sets an email wins.
    let from_git = git_config_files()
        .iter()
        .rev()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .find_map(|text| user_email(&text));
    from_git
        .or_else(|| std::env::var("USER").ok().filter(|s| !s.is_empty()))
        .or_else(|| std::env::var("USERNAME").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "unknown".to_string())
}

/// Global then repository config, lowest precedence first.
fn git_config_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        let xdg = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".config"));
        files.push(xdg.join("git").join("config"));
        files.push(home.join(".gitconfig"));
    }
    if let Some(dir) = std::env::current_dir()
        .ok()
        .as_deref()
        .and_then(find_git_dir)
    {
        files.push(dir.join("config"));
    }
    files
}

fn find_git_dir(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join(".git"))
        .find(|git| git.is_dir())
}

/// The last `email` under a `[user]` section of a git config file.
fn user_email(text: &str) -> Option<String> {
    let mut in_user = false;
    let mut email = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_user = line
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .eq_ignore_ascii_case("user");
            continue;
        }
        if !in_user {
            continue;
        }
        if let Some((key, value)) = line.split_once('=')
            && key.trim().eq_ignore_ascii_case("email")
        {
            let value = value.trim().trim_matches('"').trim();
            if !value.is_empty() {
                email = Some(value.to_string());
            }
        }
    }
    email
}

#[cfg(test)]
mod tests {
    use super::user_email;

    #[test]
    fn reads_user_email_from_git_config() {
        let cases = [
            ("[user]\n\temail = a@example.com\n", Some("a@example.com")),
            (
                "[core]\n\temail = no@example.com\n[user]\n  name = A\n  email = \"b@example.com\"\n",
                Some("b@example.com"),
            ),
            (
                "[User]\nemail=c@example.com\n[user]\nemail = d@example.com\n",
                Some("d@example.com"),
            ),
            ("[core]\n\tbare = false\n", None),
        ];
        for (text, want) in cases {
            assert_eq!(user_email(text).as_deref(), want, "{text}");
        }
    }
}
