//! The entity types a replacer knows and how each is replaced (placeholder, hmac or drop).

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::Ty;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Placeholder,
    Hmac,
    Drop,
}

impl Mode {
    pub fn parse(name: &str) -> Option<Mode> {
        match name {
            "placeholder" => Some(Mode::Placeholder),
            "hmac" => Some(Mode::Hmac),
            "drop" => Some(Mode::Drop),
            _ => None,
        }
    }
}

/// The entity types a replacer knows, by their place (``Ty::index``): the detector's
/// (built-in, then configured), then those Python detectors reported, in the order seen.
pub struct Table {
    pub names: Vec<Py<PyString>>,
    pub modes: Vec<Mode>,
    /// whether the type is named SECRET (which loses a tie on the same span)
    pub secret: Vec<bool>,
    /// the first place of each name
    by_name: HashMap<String, usize>,
}

impl Table {
    pub fn new(py: Python<'_>, names: &[String], modes: &Modes) -> Self {
        let mut table = Table {
            names: Vec::new(),
            modes: Vec::new(),
            secret: Vec::new(),
            by_name: HashMap::new(),
        };
        for name in names {
            table.push(py, name, modes);
        }
        table
    }

    fn push(&mut self, py: Python<'_>, name: &str, modes: &Modes) {
        self.by_name.entry(name.to_owned()).or_insert(self.names.len());
        self.names.push(PyString::intern(py, name).unbind());
        self.modes.push(modes.of(name));
        self.secret.push(name == "SECRET");
    }

    /// The type named ``name``, if the table has it.
    pub fn find(&self, name: &str) -> Option<Ty> {
        self.by_name.get(name).and_then(|&i| Ty::at(i))
    }

    /// The table with ``name`` added (the types are few: a copy per new one is cheap), or
    /// None when there are too many types to number.
    pub fn with(&self, py: Python<'_>, name: &str, modes: &Modes) -> Option<Arc<Table>> {
        Ty::at(self.names.len())?;
        let mut table = Table {
            names: self.names.iter().map(|n| n.clone_ref(py)).collect(),
            modes: self.modes.clone(),
            secret: self.secret.clone(),
            by_name: self.by_name.clone(),
        };
        table.push(py, name, modes);
        Some(Arc::new(table))
    }
}

/// The modes of the Redactor's settings: per type name, and the default.
pub struct Modes {
    by_type: HashMap<String, Mode>,
    default: Mode,
}

impl Modes {
    /// None for a name that is no mode.
    pub fn new(by_type: &HashMap<String, String>, default: &str) -> Option<Modes> {
        let by_type = by_type
            .iter()
            .map(|(t, m)| Some((t.clone(), Mode::parse(m)?)))
            .collect::<Option<HashMap<_, _>>>()?;
        Some(Modes { by_type, default: Mode::parse(default)? })
    }

    pub fn of(&self, name: &str) -> Mode {
        self.by_type.get(name).copied().unwrap_or(self.default)
    }

    pub fn uses_hmac(&self) -> bool {
        self.default == Mode::Hmac || self.by_type.values().any(|&m| m == Mode::Hmac)
    }
}
