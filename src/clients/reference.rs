//! `${…}` references in client config values: `${VAR}`, `${VAR:-default}` (Claude Code),
//! `${env:VAR}` (Cursor, VS Code, Windsurf), `${input:id}` (VS Code prompts) and VS Code's
//! `${workspaceFolder}` / `${userHome}`.
//!
//! Configs keep references verbatim everywhere; [`expand`] is used only to build the environment
//! and arguments of a process `record` starts, never for anything written out.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reference<'a> {
    Env {
        name: &'a str,
        default: Option<&'a str>,
    },
    /// A VS Code `inputs` prompt: only the editor can ask the user for it.
    Input(&'a str),
    WorkspaceFolder,
    UserHome,
    Unknown(&'a str),
}

fn classify(inner: &str) -> Reference<'_> {
    if let Some(name) = inner.strip_prefix("env:") {
        return Reference::Env {
            name,
            default: None,
        };
    }
    if let Some(id) = inner.strip_prefix("input:") {
        return Reference::Input(id);
    }
    match inner {
        "workspaceFolder" => return Reference::WorkspaceFolder,
        "userHome" => return Reference::UserHome,
        _ => {}
    }
    let (name, default) = match inner.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (inner, None),
    };
    if is_identifier(name) {
        Reference::Env { name, default }
    } else {
        Reference::Unknown(inner)
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether the value takes anything from a reference (`${…}`, or Gemini's bare `$VAR`), rather
/// than being a literal.
pub fn has_reference(value: &str) -> bool {
    value.contains("${")
        || value
            .match_indices('$')
            .any(|(i, _)| value.get(i + 1..).is_some_and(starts_with_identifier))
}

fn starts_with_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

/// Replaces every `${…}` with what `resolve` returns; the first error stops it. An unterminated
/// `${` is kept as literal text, as clients do.
pub fn expand(
    value: &str,
    resolve: &mut dyn FnMut(Reference<'_>) -> Result<String, String>,
) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        let (before, after) = rest.split_at(start);
        out.push_str(before);
        let Some(end) = after.find('}') else {
            rest = after;
            break;
        };
        let inner = after.get(2..end).unwrap_or_default();
        out.push_str(&resolve(classify(inner))?);
        rest = after.get(end + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_references() {
        for value in [
            "${TOKEN}",
            "Bearer ${env:TOKEN}",
            "${input:pat}",
            "$TOKEN",
            "x-$A_B",
        ] {
            assert!(has_reference(value), "{value}");
        }
        for value in ["ghp_abc", "US$5", "cost: $", "plain"] {
            assert!(!has_reference(value), "{value}");
        }
    }

    #[test]
    fn expands_each_kind() {
        let mut seen = Vec::new();
        let got = expand(
            "a ${A} b ${env:B} c ${C:-dflt} d ${input:i} e ${workspaceFolder} ${userHome} ${x y} ${open",
            &mut |r| {
                seen.push(format!("{r:?}"));
                Ok("_".to_string())
            },
        )
        .unwrap();
        assert_eq!(got, "a _ b _ c _ d _ e _ _ _ ${open");
        assert_eq!(
            seen,
            [
                r#"Env { name: "A", default: None }"#,
                r#"Env { name: "B", default: None }"#,
                r#"Env { name: "C", default: Some("dflt") }"#,
                r#"Input("i")"#,
                "WorkspaceFolder",
                "UserHome",
                r#"Unknown("x y")"#,
            ]
        );
        assert_eq!(
            expand("${input:x}", &mut |_| Err("no".to_string())),
            Err("no".to_string())
        );
    }
}
