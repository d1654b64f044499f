//! ANSI styling that switches off cleanly: no colour unless enabled (TTY, no `NO_COLOR`).

use crate::finding::Severity;

#[derive(Clone, Copy, Debug)]
pub struct Paint {
    pub enabled: bool,
}

impl Paint {
    fn wrap(self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn bold(self, text: &str) -> String {
        self.wrap("1", text)
    }

    pub fn dim(self, text: &str) -> String {
        self.wrap("2", text)
    }

    pub fn blue(self, text: &str) -> String {
        self.wrap("1;34", text)
    }

    pub fn removed(self, text: &str) -> String {
        self.wrap("31;9", text)
    }

    pub fn added(self, text: &str) -> String {
        self.wrap("32;4", text)
    }

    pub fn severity(self, severity: Severity, text: &str) -> String {
        let code = match severity {
            Severity::Critical => "1;35",
            Severity::High => "1;31",
            Severity::Medium => "1;33",
            Severity::Low => "1;36",
            Severity::Info => "1;37",
        };
        self.wrap(code, text)
    }
}
