//! The words of an identifier, as checks that judge a tool or parameter by its name read them.

/// The words of a name, and the questions checks ask of them.
pub struct NameWords(Vec<String>);

impl NameWords {
    pub fn of(name: &str) -> NameWords {
        NameWords(name_words(name))
    }

    pub fn has(&self, word: &str) -> bool {
        self.0.iter().any(|w| w == word)
    }

    pub fn has_any(&self, list: &[&str]) -> bool {
        list.iter().any(|word| self.has(word))
    }

    /// The first word of `list` (in the list's order) that the name has.
    pub fn first_of(&self, list: &[&'static str]) -> Option<&'static str> {
        list.iter().copied().find(|word| self.has(word))
    }
}

/// `name` split on `_`, `-`, `.`, spaces and camelCase humps, lower case: `db.dropTable` is
/// `db`, `drop`, `table`.
fn name_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for c in name.chars() {
        if c.is_uppercase() && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        if c.is_alphanumeric() {
            current.extend(c.to_lowercase());
        } else if !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::{NameWords, name_words};

    #[test]
    fn splits_snake_kebab_dotted_and_camel_case() {
        assert_eq!(name_words("db.drop-table"), ["db", "drop", "table"]);
        assert_eq!(name_words("removeUser"), ["remove", "user"]);
        assert_eq!(name_words("reply_to"), ["reply", "to"]);
        assert!(name_words("__").is_empty());
    }

    #[test]
    fn asks_of_the_words() {
        let words = NameWords::of("skip_tls-verify");
        assert!(words.has("tls") && !words.has("tl"));
        assert!(words.has_any(&["no", "verify"]) && !words.has_any(&["ssl"]));
        assert_eq!(words.first_of(&["ssl", "verify", "skip"]), Some("verify"));
        assert_eq!(words.first_of(&["ssl"]), None);
    }
}
