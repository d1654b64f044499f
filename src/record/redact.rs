//! Keeping secrets out of what `record` writes: the values of a server's `env` and `headers`.

/// Values this short are too likely to occur by chance (`1`, `true`, a port) to be treated as
/// secrets; real tokens are far longer.
const MIN_SECRET_LEN: usize = 8;

#[derive(Clone, Debug, Default)]
pub struct Redactor {
    /// (what the value is, e.g. `env GITHUB_TOKEN`; the value), longest values first so that a
    /// secret containing another is replaced whole.
    secrets: Vec<(String, String)>,
}

impl Redactor {
    pub fn new(secrets: impl IntoIterator<Item = (String, String)>) -> Redactor {
        let mut secrets: Vec<(String, String)> = secrets
            .into_iter()
            .filter(|(_, value)| value.len() >= MIN_SECRET_LEN)
            .collect();
        secrets.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.cmp(b)));
        Redactor { secrets }
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (label, value) in &self.secrets {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), &format!("[redacted: {label}]"));
            }
        }
        out
    }

    /// The label of the first secret that occurs in `text`.
    pub fn leaked_in(&self, text: &str) -> Option<&str> {
        self.secrets
            .iter()
            .find(|(_, value)| text.contains(value.as_str()))
            .map(|(label, _)| label.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_long_values_only() {
        let r = Redactor::new([
            ("env TOKEN".to_string(), "ghp_secret_value".to_string()),
            ("env DEBUG".to_string(), "1".to_string()),
        ]);
        assert_eq!(
            r.redact("auth ghp_secret_value failed, debug=1"),
            "auth [redacted: env TOKEN] failed, debug=1"
        );
        assert_eq!(r.leaked_in("x ghp_secret_value"), Some("env TOKEN"));
        assert_eq!(r.leaked_in("debug=1"), None);
    }
}
