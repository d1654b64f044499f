//! What a server's launch command runs: package runners (`npx`, `uvx`, …) with or without an
//! exact version, container images with or without a digest, and shell wrappers.
//!
//! The parsing is deliberately shallow — it knows each runner's common options, not all of them —
//! and errs towards silence: an argument it cannot place is never reported.

/// An argument (index into `args`) that fetches code which can change without the config
/// changing, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unpinned {
    pub arg: usize,
    pub reason: String,
}

/// `npx` & co.: options that take a value (the next argument), besides `--package`.
const NPM_VALUE_OPTIONS: [&str; 3] = ["--call", "-c", "--cache"];
const UV_VALUE_OPTIONS: [&str; 11] = [
    "--with",
    "-w",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--index",
    "--default-index",
    "--index-url",
    "--extra-index-url",
    "--directory",
];
const DOCKER_VALUE_OPTIONS: [&str; 24] = [
    "-e",
    "--env",
    "--env-file",
    "-v",
    "--volume",
    "--mount",
    "--name",
    "-p",
    "--publish",
    "--network",
    "--net",
    "-w",
    "--workdir",
    "-u",
    "--user",
    "--entrypoint",
    "-l",
    "--label",
    "--platform",
    "--pull",
    "-m",
    "--memory",
    "--cpus",
    "--add-host",
];

/// The program's name without directories or a Windows extension: `/usr/bin/npx.cmd` → `npx`.
pub fn program(command: &str) -> &str {
    let base = command.rsplit(['/', '\\']).next().unwrap_or(command);
    [".exe", ".cmd", ".bat"]
        .iter()
        .find_map(|ext| base.strip_suffix(ext))
        .unwrap_or(base)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecosystem {
    Npm,
    Python,
    Container,
}

/// An argument that names a package or image the runner fetches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackageArg {
    pub arg: usize,
    pub ecosystem: Ecosystem,
}

/// The package (or image) arguments of a launch command, in order.
pub fn packages(command: &str, args: &[&str]) -> Vec<PackageArg> {
    let runner = program(command);
    let (ecosystem, found) = match (runner, args.first().copied()) {
        ("npx" | "bunx", _) => (Ecosystem::Npm, npm_runner(args, 0)),
        ("pnpm" | "yarn", Some("dlx")) | ("npm", Some("exec")) => {
            (Ecosystem::Npm, npm_runner(args, 1))
        }
        ("uvx", _) => (Ecosystem::Python, uv_runner(args, 0)),
        ("uv", Some("tool")) if args.get(1) == Some(&"run") => {
            (Ecosystem::Python, uv_runner(args, 2))
        }
        ("pipx", Some("run")) => (Ecosystem::Python, uv_runner(args, 1)),
        ("docker" | "podman", _) => (Ecosystem::Container, container(args)),
        _ => return Vec::new(),
    };
    found
        .into_iter()
        .map(|arg| PackageArg { arg, ecosystem })
        .collect()
}

/// The first package argument that is not pinned to one release, and why.
pub fn unpinned(command: &str, args: &[&str]) -> Option<Unpinned> {
    packages(command, args).into_iter().find_map(|p| {
        let spec = args.get(p.arg)?;
        let reason = match p.ecosystem {
            Ecosystem::Npm => npm_problem(spec),
            Ecosystem::Python => python_problem(spec),
            Ecosystem::Container => image_problem(spec),
        }?;
        Some(Unpinned { arg: p.arg, reason })
    })
}

/// The index of the script argument when the command is a shell running a command string.
pub fn shell_wrapper(command: &str, args: &[&str]) -> Option<usize> {
    let flag = match program(command) {
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" => "-c",
        "cmd" => "/c",
        "powershell" | "pwsh" => "-command",
        _ => return None,
    };
    args.iter()
        .position(|a| a.eq_ignore_ascii_case(flag) || (flag == "-c" && is_short_flags_with_c(a)))
}

/// `-lc`, `-ec`: combined short options that include `-c`.
fn is_short_flags_with_c(arg: &str) -> bool {
    arg.strip_prefix('-').is_some_and(|f| {
        !f.starts_with('-') && f.contains('c') && f.chars().all(|c| c.is_ascii_alphabetic())
    })
}

fn npm_runner(args: &[&str], start: usize) -> Vec<usize> {
    let mut packages = Vec::new();
    let mut positional = None;
    let mut i = start;
    while let Some(arg) = args.get(i) {
        if *arg == "--" {
            positional = args.get(i + 1).map(|_| i + 1);
            break;
        } else if arg.starts_with("--package=") {
            packages.push(i);
        } else if matches!(*arg, "-p" | "--package") {
            packages.extend(args.get(i + 1).map(|_| i + 1));
            i += 1;
        } else if NPM_VALUE_OPTIONS.contains(arg) {
            i += 1;
        } else if !arg.starts_with('-') {
            positional = Some(i);
            break;
        }
        i += 1;
    }
    // With `--package`, the first positional is a binary name, not something to fetch.
    if packages.is_empty() {
        packages.extend(positional);
    }
    packages
}

fn npm_problem(spec: &str) -> Option<String> {
    let spec = spec.strip_prefix("--package=").unwrap_or(spec);
    if is_local(spec) {
        return None;
    }
    // The version separator is the first `@` that is not a scope's leading one.
    let split = spec
        .char_indices()
        .skip(1)
        .find(|&(_, c)| c == '@')
        .map(|(i, _)| i);
    let Some(at) = split else {
        return Some(format!(
            "`{spec}` has no version: every launch may install a different release"
        ));
    };
    let version = spec.get(at + 1..).unwrap_or_default();
    if is_exact_semver(version) {
        None
    } else {
        Some(format!(
            "`{spec}` names `{version}`, not an exact version: it can resolve to a different release at any launch"
        ))
    }
}

fn uv_runner(args: &[&str], start: usize) -> Vec<usize> {
    let mut i = start;
    while let Some(arg) = args.get(i) {
        if arg.starts_with("--from=") {
            return vec![i];
        } else if *arg == "--from" {
            return args.get(i + 1).map(|_| i + 1).into_iter().collect();
        } else if UV_VALUE_OPTIONS.contains(arg) {
            i += 1;
        } else if !arg.starts_with('-') {
            return vec![i];
        }
        i += 1;
    }
    Vec::new()
}

fn python_problem(spec: &str) -> Option<String> {
    let spec = spec.strip_prefix("--from=").unwrap_or(spec);
    if is_local(spec) || spec.starts_with("git+") {
        return None;
    }
    if let Some((_, version)) = spec.split_once("==") {
        return (version.is_empty() || version.contains('*')).then(|| {
            format!("`{spec}` is not an exact version: it can resolve to a different release")
        });
    }
    // uvx also takes `pkg@1.2.3`; `pkg@latest` is the opposite of a pin.
    if let Some((_, version)) = spec.split_once('@')
        && version != "latest"
        && !version.is_empty()
    {
        return None;
    }
    Some(format!(
        "`{spec}` has no `==` version: every launch may install a different release"
    ))
}

fn container(args: &[&str]) -> Vec<usize> {
    let run = match (args.first(), args.get(1)) {
        (Some(&"run"), _) => 1,
        (Some(&"container"), Some(&"run")) => 2,
        _ => return Vec::new(),
    };
    let mut i = run;
    while let Some(arg) = args.get(i) {
        if DOCKER_VALUE_OPTIONS.contains(arg) {
            i += 1;
        } else if !arg.starts_with('-') {
            return vec![i];
        }
        i += 1;
    }
    Vec::new()
}

fn image_problem(image: &str) -> Option<String> {
    (!image.contains("@sha256:")).then(|| {
        format!("image `{image}` has no digest (`@sha256:…`): a tag can be moved to other content")
    })
}

fn is_local(spec: &str) -> bool {
    spec.starts_with(['.', '/', '~'])
        || ["file:", "http:", "https:", "git:", "github:"]
            .iter()
            .any(|p| spec.starts_with(p))
}

/// `1.2.3`, `1.2.3-rc.1`, `1.2.3+build`: one release, never a range or a tag.
fn is_exact_semver(version: &str) -> bool {
    let core = version.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str) -> Option<(usize, String)> {
        let mut words = line.split(' ');
        let command = words.next().unwrap();
        let args: Vec<&str> = words.collect();
        unpinned(command, &args).map(|u| (u.arg, u.reason))
    }

    #[test]
    fn pinned_commands_pass() {
        for line in [
            "npx -y @modelcontextprotocol/server-everything@2026.8.31",
            "npx -y pkg@1.2.3-rc.1 --flag latest",
            "npx --package=pkg@1.0.0 bin-name",
            "npx ./local-server",
            "node server.js",
            "/usr/local/bin/npx.cmd -y pkg@0.1.0",
            "pnpm dlx pkg@1.0.0",
            "uvx mcp-server-fetch==2025.1.1",
            "uvx --from mcp-server-git==1.0 mcp-server-git",
            "uvx ruff@0.3.0",
            "uv tool run pkg==1",
            "docker run -i --rm -e TOKEN ghcr.io/github/github-mcp-server@sha256:abc",
            "docker run",
            "python -m server",
        ] {
            assert_eq!(check(line), None, "{line}");
        }
    }

    #[test]
    fn unpinned_commands_name_the_argument() {
        let cases = [
            (
                "npx -y @modelcontextprotocol/server-everything",
                1,
                "has no version",
            ),
            ("npx -y pkg@latest", 1, "`latest`, not an exact version"),
            ("npx pkg@^1.2.0", 0, "not an exact version"),
            ("bunx --bun pkg", 1, "has no version"),
            ("npx -p pkg@1 bin", 1, "not an exact version"),
            ("npm exec pkg", 1, "has no version"),
            ("uvx mcp-server-fetch", 0, "no `==` version"),
            ("uvx --python 3.12 pkg", 2, "no `==` version"),
            ("uvx --from pkg>=1 bin", 1, "no `==` version"),
            ("uvx pkg@latest", 0, "no `==` version"),
            ("uvx pkg==1.*", 0, "not an exact version"),
            (
                "docker run -i --rm -e TOKEN ghcr.io/x/y:latest",
                5,
                "has no digest",
            ),
            ("podman container run image", 2, "has no digest"),
        ];
        for (line, arg, reason) in cases {
            let (got_arg, got_reason) = check(line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(got_arg, arg, "{line}");
            assert!(got_reason.contains(reason), "{line}: {got_reason}");
        }
    }

    #[test]
    fn finds_shell_wrappers() {
        assert_eq!(shell_wrapper("sh", &["-c", "npx x"]), Some(0));
        assert_eq!(shell_wrapper("/bin/bash", &["-lc", "npx x"]), Some(0));
        assert_eq!(shell_wrapper("cmd", &["/C", "npx x"]), Some(0));
        assert_eq!(
            shell_wrapper("pwsh", &["-NoProfile", "-Command", "x"]),
            Some(1)
        );
        assert_eq!(shell_wrapper("bash", &["script.sh"]), None);
        assert_eq!(shell_wrapper("npx", &["-c", "x"]), None);
    }
}
