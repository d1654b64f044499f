//! A parsed JSON value together with where it came from in the source.

use compact_str::CompactString;

use super::{Number, Object, Pointer, Span};

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    /// The whole value in the source; for strings the quotes are included.
    /// Default (0..0) for trees built in code. Only the parser sets it: canonical writing
    /// takes a string whose literal is its decoded length plus its quotes as free of escapes.
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(Number),
    String(CompactString),
    Array(Vec<Node>),
    Object(Object),
}

impl Value {
    /// The JSON type name, for messages like "expected an array, found a string".
    pub fn kind_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

impl Node {
    /// A node without a source location, for trees synthesised in code.
    pub fn new(value: Value) -> Node {
        Node {
            value,
            span: Span::default(),
        }
    }

    pub fn string(s: impl Into<CompactString>) -> Node {
        Node::new(Value::String(s.into()))
    }

    pub fn object(object: Object) -> Node {
        Node::new(Value::Object(object))
    }

    pub fn array(items: Vec<Node>) -> Node {
        Node::new(Value::Array(items))
    }

    pub fn u64(n: u64) -> Node {
        Node::new(Value::Number(Number::from_u64(n)))
    }

    pub fn bool(b: bool) -> Node {
        Node::new(Value::Bool(b))
    }

    pub fn null() -> Node {
        Node::new(Value::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object> {
        match &self.value {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Node>> {
        match &self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match &self.value {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Shorthand for `as_number()` then [`Number::as_u64`].
    pub fn as_u64(&self) -> Option<u64> {
        self.as_number().and_then(Number::as_u64)
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// Object member lookup (last occurrence wins); `None` for non-objects.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_object().and_then(|o| o.get(key))
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.as_object_mut().and_then(|o| o.get_mut(key))
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Object> {
        match &mut self.value {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// Resolves an RFC 6901 pointer; see [`super::pointer`] for the rules.
    pub fn pointer(&self, p: &Pointer) -> Option<&Node> {
        super::pointer::resolve(self, p)
    }

    pub fn kind_name(&self) -> &'static str {
        self.value.kind_name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_and_accessors() {
        let mut o = Object::new();
        o.insert("k", Node::string("v"));
        let cases: [(Node, &str); 6] = [
            (Node::null(), "null"),
            (Node::bool(true), "boolean"),
            (Node::u64(3), "number"),
            (Node::string("s"), "string"),
            (Node::array(vec![Node::null()]), "array"),
            (Node::object(o), "object"),
        ];
        for (node, kind) in &cases {
            assert_eq!(node.kind_name(), *kind);
            assert_eq!(node.span, Span::default());
        }
        let [null, boolean, number, string, array, object] = &cases;
        assert!(null.0.is_null());
        assert_eq!(boolean.0.as_bool(), Some(true));
        assert_eq!(number.0.as_u64(), Some(3));
        assert_eq!(number.0.as_number().map(Number::raw), Some("3"));
        assert_eq!(string.0.as_str(), Some("s"));
        assert_eq!(array.0.as_array().map(Vec::len), Some(1));
        assert_eq!(object.0.get("k").and_then(Node::as_str), Some("v"));
        assert_eq!(string.0.get("k"), None);
        assert_eq!(string.0.as_object(), None);
        assert_eq!(object.0.as_str(), None);
        assert_eq!(null.0.as_bool(), None);
    }
}
