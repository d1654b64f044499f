//! The words of an identifier, as checks that judge a tool or parameter by its name read them.

/// `name` split on `_`, `-`, `.`, spaces and camelCase humps, lower case: `db.dropTable` is
/// `db`, `drop`, `table`.
pub fn name_words(name: &str) -> Vec<String> {
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
    use super::name_words;

    #[test]
    fn splits_snake_kebab_dotted_and_camel_case() {
        assert_eq!(name_words("db.drop-table"), ["db", "drop", "table"]);
        assert_eq!(name_words("removeUser"), ["remove", "user"]);
        assert_eq!(name_words("reply_to"), ["reply", "to"]);
        assert!(name_words("__").is_empty());
    }
}
