//! Every SARIF document the tests produce must validate against the official SARIF 2.1.0 schema
//! (`testdata/schemas/`), so GitHub and other consumers accept it.

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/schemas/sarif-schema-2.1.0.json");
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        jsonschema::draft4::new(&schema).unwrap()
    })
}

/// Panics with every schema violation in `document`.
pub fn assert_valid(document: &str) {
    let instance: Value = serde_json::from_str(document).expect("SARIF output is JSON");
    let errors: Vec<String> = validator()
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "invalid SARIF:\n{}", errors.join("\n"));
}

/// The validator is not vacuous: it rejects what GitHub would.
#[test]
fn rejects_invalid_documents() {
    let bad = [
        r#"{"version": "2.1.0"}"#,
        r#"{"version": "2.0.0", "runs": []}"#,
        r#"{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "level": "high"}]}]}"#,
        r#"{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"message": {"text": "m"}, "locations": [{"physicalLocation": {"region": {"startLine": 0}}}]}]}]}"#,
    ];
    for document in bad {
        let instance: Value = serde_json::from_str(document).unwrap();
        assert!(!validator().is_valid(&instance), "{document}");
    }
    assert_valid(r#"{"version": "2.1.0", "runs": []}"#);
}
